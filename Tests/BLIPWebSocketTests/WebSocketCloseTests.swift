import BLIP
import Foundation
import Testing
import TestSupport
@testable import BLIPWebSocket

@Suite(.timeLimit(.minutes(TestTimeScale.minutes(1))), .ownThreads)
struct WebSocketCloseTests {
    @Test func serverStopEndsTheClientsIncomingWithGoingAway() async throws {
        let echo = try await EchoServer()
        let transport = try await BLIPWebSocketClient.connect(to: try echo.url(), options: BLIPWebSocketClientOptions().scaledForTests)
        _ = await echo.nextEvent()
        await echo.server.stop()
        let (_, error) = await drain(transport)
        #expect(error == .closed(code: 1001, reason: "server stopping"))
        #expect(error?.isTransient == true)
        #expect(echo.server.port == nil)
    }

    @Test func clientCloseWithAnErrorCodeMakesTheServersIncomingThrow() async throws {
        let echo = try await EchoServer()
        let transport = try await BLIPWebSocketClient.connect(to: try echo.url(), options: BLIPWebSocketClientOptions().scaledForTests)
        await transport.close(code: 4001, reason: "replicator gave up")
        #expect(await echo.nextIncomingEnd() == .some(.closed(code: 4001, reason: "replicator gave up")))
        // Our own close ends our incoming normally, whatever code we sent.
        #expect(await drain(transport).error == nil)
        await echo.server.stop()
    }

    @Test func serverCloseWith1000FinishesTheClientsIncoming() async throws {
        let echo = try await EchoServer(onConnect: { transport in
            try await transport.send([1])
            await transport.close(code: 1000, reason: "")
        })
        let transport = try await BLIPWebSocketClient.connect(to: try echo.url(), options: BLIPWebSocketClientOptions().scaledForTests)
        let (frames, error) = await drain(transport)
        #expect(frames == [[1]])
        #expect(error == nil)
        await echo.server.stop()
    }

    @Test func textMessageFromTheServerIsAProtocolError() async throws {
        let echo = try await EchoServer(onConnect: { transport in
            try await transport.send([1])
            try await transport.send(Array("hello".utf8), opcode: .text)
        })
        let transport = try await BLIPWebSocketClient.connect(to: try echo.url(), options: BLIPWebSocketClientOptions().scaledForTests)
        let (frames, error) = await drain(transport)
        #expect(frames == [[1]])
        guard case .protocolError? = error else {
            Issue.record("expected protocolError, got \(String(describing: error))")
            return
        }
        // The client answered with close 1003 (unsupported data).
        #expect(await echo.nextIncomingEnd() == .some(.closed(code: 1003, reason: "")))
        await echo.server.stop()
    }

    @Test func textMessageFromTheClientIsAProtocolError() async throws {
        let echo = try await EchoServer()
        let transport = try await BLIPWebSocketClient.connect(to: try echo.url(), options: BLIPWebSocketClientOptions().scaledForTests)
        try await transport.send(Array("hello".utf8), opcode: .text)
        guard case .some(.some(.protocolError)) = await echo.nextIncomingEnd() else {
            Issue.record("expected the server's incoming to end with protocolError")
            return
        }
        #expect(await drain(transport).error == .closed(code: 1003, reason: ""))
        await echo.server.stop()
    }
}
