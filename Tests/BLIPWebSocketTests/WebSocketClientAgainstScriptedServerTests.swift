import BLIP
import Foundation
import Testing
import TestSupport
@testable import BLIPWebSocket

/// The client against servers that answer in ways our own server never does.
@Suite(.timeLimit(.minutes(TestTimeScale.minutes(1))), .ownThreads)
struct WebSocketClientAgainstScriptedServerTests {
    static func switchingProtocols(_ request: String, extraHeaders: String) -> String {
        "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Accept: \(ScriptedHTTPServer.acceptValue(forRequest: request))\r\n\(extraHeaders)\r\n"
    }

    @Test func upgradeRequestHasLiteCoreHeadersAndADroppedConnectionIsLost() async throws {
        let server = try await ScriptedHTTPServer { request in
            // Upgrade, then drop the TCP connection without a close frame.
            .reply(Self.switchingProtocols(request, extraHeaders: "Sec-WebSocket-Protocol: BLIP_3+CBMobile_2\r\n"),
                   thenClose: true)
        }
        var options = BLIPWebSocketClientOptions().scaledForTests
        options.headers.add(name: "Cookie", value: "SyncGatewaySession=abc")
        let transport = try await BLIPWebSocketClient.connect(to: try #require(server.url("/server/_blipsync?x=1")),
                                                              options: options)
        var requests = server.requests.makeAsyncIterator()
        let request = try #require(await requests.next())
        let lines = request.split(separator: "\r\n").map(String.init)
        #expect(lines.first == "GET /server/_blipsync?x=1 HTTP/1.1")
        let names = Set(lines.dropFirst().compactMap { $0.split(separator: ":").first?.lowercased() })
        #expect(names == ["host", "connection", "upgrade", "sec-websocket-version", "sec-websocket-key",
                          "sec-websocket-protocol", "cookie"])
        #expect(lines.contains("Host: 127.0.0.1:\(server.port)"))
        #expect(lines.contains("Sec-WebSocket-Protocol: BLIP_3+CBMobile_2"))
        #expect(lines.contains("Sec-WebSocket-Version: 13"))
        #expect(lines.contains("Cookie: SyncGatewaySession=abc"))
        #expect(await drain(transport).error == .connectionLost)
        await server.stop()
    }

    @Test func acceptsTheLiteCoreListenersHTTP10UpgradeWithAFrameInTheSamePacket() async throws {
        // The 2.8 listener's answer, header for header (captures-2.8 *.headers.txt), followed at
        // once by a binary message [1, 2, 3]. (Not then hanging up: bytes that arrive with the 101
        // and an immediate EOF can lose to the EOF inside NIO's upgrade buffering.)
        let server = try await ScriptedHTTPServer { request in
            let head = "HTTP/1.0 101 Upgraded\r\nDate: Sun, 22 Nov 2026 02:32:29 GMT\r\nConnection: Upgrade\r\n"
                + "Upgrade: websocket\r\nSec-WebSocket-Accept: \(ScriptedHTTPServer.acceptValue(forRequest: request))\r\n"
                + "Sec-WebSocket-Protocol: BLIP_3+CBMobile_2\r\nContent-Length: 0\r\n\r\n"
            return .raw(Array(head.utf8) + [0x82, 0x03, 1, 2, 3], thenClose: false)
        }
        let transport = try await BLIPWebSocketClient.connect(
            to: try #require(server.url()), options: BLIPWebSocketClientOptions(closeTimeout: .milliseconds(100)).scaledForTests)
        var frames = transport.incoming.makeAsyncIterator()
        #expect(try await frames.next() == [1, 2, 3])
        // The script never answers our close frame: close returns after the close timeout.
        await transport.close(code: 1000, reason: "")
        #expect(await webSocketError { try await transport.send([4]) } == .notConnected)
        await server.stop()
    }

    @Test func upgradeWithoutTheSubprotocolIsRejected() async throws {
        let server = try await ScriptedHTTPServer { request in
            .reply(Self.switchingProtocols(request, extraHeaders: ""), thenClose: false)
        }
        let error = await webSocketError {
            _ = try await BLIPWebSocketClient.connect(to: try #require(server.url()), options: BLIPWebSocketClientOptions().scaledForTests)
        }
        #expect(error == .subprotocolNotAccepted(offered: "BLIP_3+CBMobile_2", answered: nil))
        await server.stop()
    }

    @Test func upgradeWithAnotherSubprotocolIsRejected() async throws {
        let server = try await ScriptedHTTPServer { request in
            .reply(Self.switchingProtocols(request, extraHeaders: "Sec-WebSocket-Protocol: BLIP_2\r\n"), thenClose: false)
        }
        let error = await webSocketError {
            _ = try await BLIPWebSocketClient.connect(to: try #require(server.url()), options: BLIPWebSocketClientOptions().scaledForTests)
        }
        #expect(error == .subprotocolNotAccepted(offered: "BLIP_3+CBMobile_2", answered: "BLIP_2"))
        await server.stop()
    }

    @Test func refusalKeepsStatusAndCookies() async throws {
        let server = try await ScriptedHTTPServer { _ in
            .reply("HTTP/1.1 503 Service Unavailable\r\nSet-Cookie: a=1\r\nSet-Cookie: b=2\r\nContent-Length: 4\r\n\r\nbusy",
                   thenClose: true)
        }
        let error = await webSocketError {
            _ = try await BLIPWebSocketClient.connect(to: try #require(server.url()), options: BLIPWebSocketClientOptions().scaledForTests)
        }
        guard case .refused(let refusal)? = error else {
            Issue.record("expected a refusal, got \(String(describing: error))")
            return
        }
        #expect(refusal.status == 503)
        #expect(refusal.reason == "Service Unavailable")
        #expect(refusal.setCookies == ["a=1", "b=2"])
        #expect(error?.isTransient == true)
        await server.stop()
    }

    @Test func hangingUpDuringTheHandshakeIsATransientFailure() async throws {
        let server = try await ScriptedHTTPServer { _ in .hangUp }
        let error = await webSocketError {
            _ = try await BLIPWebSocketClient.connect(to: try #require(server.url()), options: BLIPWebSocketClientOptions().scaledForTests)
        }
        guard case .connectionFailed? = error else {
            Issue.record("expected connectionFailed, got \(String(describing: error))")
            return
        }
        await server.stop()
    }

    @Test func silentServerTimesOut() async throws {
        let server = try await ScriptedHTTPServer { _ in .ignore }
        let error = await webSocketError {
            _ = try await BLIPWebSocketClient.connect(to: try #require(server.url()),
                                                      options: BLIPWebSocketClientOptions(connectTimeout: .milliseconds(300)).scaledForTests)
        }
        #expect(error == .timeout)
        #expect(error?.isTransient == true)
        await server.stop()
    }

    @Test func badAcceptKeyIsAProtocolError() async throws {
        let server = try await ScriptedHTTPServer { _ in
            .reply("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                   + "Sec-WebSocket-Accept: bm90IHRoZSByaWdodCBrZXk=\r\nSec-WebSocket-Protocol: BLIP_3+CBMobile_2\r\n\r\n",
                   thenClose: false)
        }
        let error = await webSocketError {
            _ = try await BLIPWebSocketClient.connect(to: try #require(server.url()), options: BLIPWebSocketClientOptions().scaledForTests)
        }
        guard case .protocolError? = error else {
            Issue.record("expected protocolError, got \(String(describing: error))")
            return
        }
        await server.stop()
    }
}
