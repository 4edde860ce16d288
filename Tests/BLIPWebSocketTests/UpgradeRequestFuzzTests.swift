import BLIP
import Foundation
import Testing
import TestSupport
@testable import BLIPWebSocket

/// Mutation fuzzing of everything a client's upgrade request reaches on the server: NIO's HTTP
/// parser, the upgrader, ``UpgradePolicy`` (path, database name, credentials, subprotocol) and
/// the refusal responder. Each input is sent over loopback to one running server, the writing
/// side shut so the server sees the request end; the server must answer or close within the
/// per-input limit, never let an input in without the credentials, and still accept a normal
/// client after all of them.
@Suite(.ownThreads) struct UpgradeRequestFuzzTests {
    static let credentials = "Basic " + Data("fuzz:pass".utf8).base64EncodedString()

    static let seeds: [String] = [
        "GET /db/_blipsync HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
            + "Sec-WebSocket-Protocol: BLIP_3+CBMobile_2\r\nAuthorization: \(credentials)\r\n\r\n",
        "GET /travel%20sample/_blipsync?x=1 HTTP/1.1\r\nHost: h\r\nUpgrade: websocket\r\nConnection: keep-alive, Upgrade\r\n"
            + "Sec-WebSocket-Key: AQIDBAUGBwgJCgsMDQ4PEA==\r\nSec-WebSocket-Version: 13\r\n"
            + "Sec-WebSocket-Protocol: BLIP_3, BLIP_3+CBMobile_2\r\n\r\n",
        "POST /db/_blipsync HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nhello",
    ]
    static let tokens: [[UInt8]] = ["\r\n", ": ", "%", "%00", "/_blipsync", "Authorization: Basic ", "Content-Length: ",
                                    "Transfer-Encoding: chunked\r\n", "Upgrade: websocket\r\n", "\u{0}", "HTTP/1.0",
                                    String(repeating: "A", count: 300)].map { Array($0.utf8) }

    @Test func mutatedUpgradeRequestsAreAnsweredOrClosed() async throws {
        var options = BLIPWebSocketServerOptions(authenticate: { headers in
            headers["Authorization"] == Self.credentials ? .allow : .challenge(realm: "fuzz")
        }, databaseExists: { $0 == "db" })
        options.handshakeTimeout = .seconds(2)
        let echo = try await EchoServer(options: options)
        let port = UInt16(try #require(echo.server.port))
        let campaign = try await FuzzCampaign.run("WebSocket upgrade requests", seed: 0x0_57E0_0001, inputs: 400) { random in
            let seed = Array(Self.seeds[Int.random(in: 0..<Self.seeds.count, using: &random)].utf8)
            let input = FuzzMutator.mutate(seed, &random, tokens: Self.tokens)
            let answer = try await RawSocket.offPool { () -> [UInt8] in
                let socket = try RawSocket(port: port, timeout: 10)
                try? socket.send(input)  // the server may hang up before reading it all: that is an answer too
                socket.shutdownWriting()
                return try socket.readUntilEndOfStream()
            }
            let text = String(decoding: answer.prefix(64), as: UTF8.self)
            if text.hasPrefix("HTTP/1.1 101") {
                // In only with the credentials, on the one database's path.
                let request = String(decoding: input, as: UTF8.self)
                #expect(request.contains(Self.credentials), "let in without credentials: \(request.debugDescription)")
                return .accepted
            }
            #expect(answer.isEmpty || text.hasPrefix("HTTP/1."), "answered \(text.debugDescription)")
            return .rejected
        }
        #expect(campaign.rejected > 0)
        // Each input is a loopback round trip to a server on the same busy machine, and one the
        // server waits on more of ends at its 2 s handshake deadline: a hang is past 10 s.
        #expect(campaign.slowest < TestTimeScale.scaled(.seconds(10)))
        // Still serving a normal client.
        let transport = try await BLIPWebSocketClient.connect(
            to: try echo.url(), options: BLIPWebSocketClientOptions(headers: ["Authorization": Self.credentials]).scaledForTests)
        await transport.close(code: 1000, reason: "")
        await echo.server.stop()
    }
}
