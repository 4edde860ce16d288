import BLIP
import Foundation
import Testing
import TestSupport
@testable import BLIPWebSocket

@Suite(.timeLimit(.minutes(TestTimeScale.minutes(1))), .ownThreads)
struct WebSocketHandshakeTests {
    static let credentials = "Basic " + Data("pupshaw:frank".utf8).base64EncodedString()

    @Test func refusedCredentialsSurfaceStatus401AndTheChallenge() async throws {
        let options = BLIPWebSocketServerOptions(authenticate: { headers in
            headers["authorization"] == Self.credentials ? .allow : .challenge(realm: "Couchbase Lite")
        })
        let echo = try await EchoServer(options: options)
        let error = await webSocketError {
            _ = try await BLIPWebSocketClient.connect(to: try echo.url(), options: BLIPWebSocketClientOptions().scaledForTests)
        }
        guard case .refused(let refusal)? = error else {
            Issue.record("expected a refusal, got \(String(describing: error))")
            return
        }
        #expect(refusal.status == 401)
        #expect(refusal.wwwAuthenticate == "Basic realm=\"Couchbase Lite\"")
        #expect(error?.isTransient == false)

        // The same server lets the client in with the right credentials.
        let transport = try await BLIPWebSocketClient.connect(
            to: try echo.url(), options: BLIPWebSocketClientOptions(headers: ["Authorization": Self.credentials]).scaledForTests)
        guard case .connected(_, let headers, _)? = await echo.nextEvent() else {
            Issue.record("the handler did not report the connection")
            return
        }
        // The refused attempt never reached the handler: this is the first connection.
        #expect(headers["Authorization"] == Self.credentials)
        await transport.close(code: 1000, reason: "")
        await echo.server.stop()
    }

    @Test func forbiddenCredentialsSurfaceStatus403() async throws {
        let echo = try await EchoServer(options: BLIPWebSocketServerOptions(authenticate: { _ in .forbid }))
        let error = await webSocketError {
            _ = try await BLIPWebSocketClient.connect(to: try echo.url(), options: BLIPWebSocketClientOptions().scaledForTests)
        }
        #expect(error.map(Self.status) == 403)
        await echo.server.stop()
    }

    @Test(arguments: ["/db/other", "/db", "/db/_blipsync/more", "/_blipsync", "//_blipsync"])
    func otherPathsGet404(path: String) async throws {
        let echo = try await EchoServer()
        let url = try echo.url(path: path)
        let error = await webSocketError {
            _ = try await BLIPWebSocketClient.connect(to: url, options: BLIPWebSocketClientOptions().scaledForTests)
        }
        #expect(error.map(Self.status) == 404)
        await echo.server.stop()
    }

    @Test func unknownDatabaseGets404AndKnownOneConnects() async throws {
        let echo = try await EchoServer(options: BLIPWebSocketServerOptions(databaseExists: { $0 == "travel sample" }))
        let error = await webSocketError {
            _ = try await BLIPWebSocketClient.connect(to: try echo.url("missing"), options: BLIPWebSocketClientOptions().scaledForTests)
        }
        #expect(error.map(Self.status) == 404)
        let url = try echo.url("travel sample")
        #expect(url.path.hasPrefix("/travel%20sample/") || url.absoluteString.contains("/travel%20sample/"))
        let transport = try await BLIPWebSocketClient.connect(to: url, options: BLIPWebSocketClientOptions().scaledForTests)
        guard case .connected(let database, _, _)? = await echo.nextEvent() else {
            Issue.record("the handler did not report the connection")
            return
        }
        #expect(database == "travel sample")
        await transport.close(code: 1000, reason: "")
        await echo.server.stop()
    }

    @Test("a missing or different subprotocol is refused with 400", arguments: ["", "BLIP_2+CBMobile_1"])
    func wrongSubprotocolIsRefused(offered: String) async throws {
        let echo = try await EchoServer()
        let error = await webSocketError {
            _ = try await BLIPWebSocketClient.connect(to: try echo.url(), options: BLIPWebSocketClientOptions(subprotocol: offered).scaledForTests)
        }
        #expect(error.map(Self.status) == 400)
        await echo.server.stop()
    }

    @Test func connectionsOverTheLimitGet503() async throws {
        let echo = try await EchoServer(options: BLIPWebSocketServerOptions(maxConnections: 1))
        let first = try await BLIPWebSocketClient.connect(to: try echo.url(), options: BLIPWebSocketClientOptions().scaledForTests)
        _ = await echo.nextEvent()      // the first handler runs, so it counts
        let error = await webSocketError {
            _ = try await BLIPWebSocketClient.connect(to: try echo.url(), options: BLIPWebSocketClientOptions().scaledForTests)
        }
        #expect(error.map(Self.status) == 503)
        #expect(error?.isTransient == true)
        await first.close(code: 1000, reason: "")
        await echo.server.stop()
    }

    @Test func refusedConnectionIsATransientConnectionFailure() async throws {
        // A port that was just free'd by a stopped server.
        let echo = try await EchoServer()
        let url = try echo.url()
        await echo.server.stop()
        let error = await webSocketError {
            _ = try await BLIPWebSocketClient.connect(to: url, options: BLIPWebSocketClientOptions().scaledForTests)
        }
        guard case .connectionFailed? = error else {
            Issue.record("expected connectionFailed, got \(String(describing: error))")
            return
        }
        #expect(error?.isTransient == true)
    }

    @Test(arguments: ["http://127.0.0.1:4984/db/_blipsync", "ws:///db/_blipsync", "file:///tmp/x"])
    func nonWebSocketURLsAreInvalid(url: String) async throws {
        let error = await webSocketError {
            _ = try await BLIPWebSocketClient.connect(to: try #require(URL(string: url)), options: BLIPWebSocketClientOptions().scaledForTests)
        }
        guard case .invalidURL? = error else {
            Issue.record("expected invalidURL, got \(String(describing: error))")
            return
        }
    }

    static func status(_ error: BLIPWebSocketError) -> Int? {
        if case .refused(let refusal) = error { return refusal.status }
        return nil
    }
}
