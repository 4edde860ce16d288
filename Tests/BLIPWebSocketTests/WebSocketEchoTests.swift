import BLIP
import Foundation
import Testing
import TestSupport
@testable import BLIPWebSocket

@Suite(.timeLimit(.minutes(TestTimeScale.minutes(3))), .ownThreads)
struct WebSocketEchoTests {
    /// Frame `i`: its index, then a run of bytes whose length varies (one frame is larger than
    /// a WebSocket frame's default 16 KiB limit).
    static func frame(_ index: Int) -> [UInt8] {
        let length = index == 1000 ? 70_000 : (index * 37) % 1500
        return withUnsafeBytes(of: UInt32(index).bigEndian, Array.init) + (0..<length).map { UInt8(truncatingIfNeeded: $0 &+ index) }
    }

    @Test("2,000 binary frames echo back in order, over ws:// and over wss:// with a pinned certificate",
          arguments: [false, true])
    func echoesFramesInOrder(secure: Bool) async throws {
        let certificate = try SelfSignedCertificate(commonName: "echo test")
        let echo = try await EchoServer(options: BLIPWebSocketServerOptions(tlsIdentity: secure ? certificate.identity : nil))
        let url = try echo.url()
        #expect(url.scheme == (secure ? "wss" : "ws"))
        let transport = try await BLIPWebSocketClient.connect(
            to: url, options: BLIPWebSocketClientOptions(pinnedServerCertificate: secure ? certificate.certificateDER : nil).scaledForTests)
        #expect(transport.subprotocol == "BLIP_3+CBMobile_2")
        #expect(transport.peerHeaders["Sec-WebSocket-Protocol"] == "BLIP_3+CBMobile_2")

        let count = 2_000
        async let sent: Void = {
            for index in 0..<count { try await transport.send(Self.frame(index)) }
        }()
        var received = 0
        for try await frame in transport.incoming {
            #expect(frame == Self.frame(received), "frame \(received)")
            received += 1
            if received == count { break }
        }
        try await sent
        #expect(received == count)

        guard case .connected(let database, let headers, let remoteAddress)? = await echo.nextEvent() else {
            Issue.record("the handler did not report the connection")
            return
        }
        #expect(database == "db")
        #expect(headers["Sec-WebSocket-Protocol"] == "BLIP_3+CBMobile_2")
        #expect(remoteAddress?.hasPrefix("127.0.0.1:") == true)

        await transport.close(code: 1000, reason: "")
        // The client's own close ends the server's incoming normally, and the client's too.
        #expect(await echo.nextIncomingEnd() == .some(nil))
        #expect(await drain(transport).error == nil)
        await echo.server.stop()
    }

    @Test func sendAfterCloseThrowsNotConnected() async throws {
        let echo = try await EchoServer()
        let transport = try await BLIPWebSocketClient.connect(to: try echo.url(), options: BLIPWebSocketClientOptions().scaledForTests)
        await transport.close(code: 1000, reason: "done")
        await transport.close(code: 1000, reason: "again")     // idempotent
        #expect(await webSocketError { try await transport.send([1, 2, 3]) } == .notConnected)
        await echo.server.stop()
    }
}
