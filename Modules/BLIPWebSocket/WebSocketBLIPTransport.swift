import BLIP
import LiteSupport
import NIOCore
import NIOWebSocket

/// A BLIP transport over one WebSocket: each BLIP frame is one binary message.
///
/// Made by ``BLIPWebSocketClient/connect(to:options:)`` on the active side and handed to the
/// handler by ``BLIPWebSocketServer`` on the passive side. Frames keep their order both ways
/// (one caller sending in sequence sees them arrive in sequence).
///
/// `incoming` finishes when the peer closes with 1000 (or without a code) or after our own
/// ``close(code:reason:)``; it throws ``BLIPWebSocketError/closed(code:reason:)`` for any other
/// close code, ``BLIPWebSocketError/connectionLost`` when the TCP connection drops, and
/// ``BLIPWebSocketError/protocolError(_:)`` when the peer sends a text message or a bad frame.
package final class WebSocketBLIPTransport: BLIPTransport {
    package let incoming: AsyncThrowingStream<[UInt8], any Error>
    /// The other side's handshake headers: the 101 response's on a client, the upgrade
    /// request's on a server.
    package let peerHeaders: HTTPHeaderFields
    /// The subprotocol both sides agreed on (`BLIP_3+CBMobile_2`).
    package let subprotocol: String
    /// The peer's address as `host:port` (`[::1]:port` for IPv6), when known.
    package let remoteAddress: String?

    private let eventLoop: any EventLoop
    private let handler: NIOLoopBound<WebSocketFrameHandler>

    private init(incoming: AsyncThrowingStream<[UInt8], any Error>, peerHeaders: HTTPHeaderFields,
                 subprotocol: String, remoteAddress: String?, eventLoop: any EventLoop,
                 handler: NIOLoopBound<WebSocketFrameHandler>) {
        self.incoming = incoming
        self.peerHeaders = peerHeaders
        self.subprotocol = subprotocol
        self.remoteAddress = remoteAddress
        self.eventLoop = eventLoop
        self.handler = handler
    }

    /// Puts the frame handler at the end of an upgraded channel's pipeline. Call on the
    /// channel's event loop, from the upgrader's pipeline callback.
    ///
    /// - Parameters:
    ///   - idleTimeout: close the connection when the peer sends nothing for this long (it is
    ///     pinged half way).
    ///   - maxBufferedBytes: received frames not yet taken from ``incoming`` past which the
    ///     socket is not read until the reader catches up.
    static func install(on channel: any Channel, role: WebSocketFrameHandler.Role, peerHeaders: HTTPHeaderFields,
                        subprotocol: String, maxMessageSize: Int, closeTimeout: Duration,
                        heartbeat: Duration? = nil, idleTimeout: Duration? = nil,
                        maxBufferedBytes: Int = BLIPWebSocketServerOptions.defaultMaxBufferedBytes,
                        log: (@Sendable (String) -> Void)? = nil) throws -> WebSocketBLIPTransport {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: [UInt8].self)
        let flow = IncomingFlow(limit: maxBufferedBytes)
        let handler = WebSocketFrameHandler(role: role, maxMessageSize: maxMessageSize,
                                            closeTimeout: TimeAmount(closeTimeout), continuation: continuation,
                                            heartbeat: heartbeat.map(TimeAmount.init),
                                            idleTimeout: idleTimeout.map(TimeAmount.init), flow: flow, log: log)
        try channel.pipeline.syncOperations.addHandler(handler)
        let bound = NIOLoopBound(handler, eventLoop: channel.eventLoop)
        // Each frame counts as taken when the reader asks for the next one (it handles frames
        // one at a time); a resume hops to the event loop only when reading was paused.
        let taker = UnfoldingIterator(stream.makeAsyncIterator())
        let previous = Locked(0)   // the size of the frame handed out last, not yet reported
        let counted = AsyncThrowingStream<[UInt8], any Error>(unfolding: { [eventLoop = channel.eventLoop] in
            let count = previous.withLock { count in
                defer { count = 0 }
                return count
            }
            if count > 0, flow.taken(count) { eventLoop.execute { bound.value.resumeReading() } }
            let frame = try await taker.next()
            previous.withLock { $0 = frame?.count ?? 0 }
            return frame
        })
        return WebSocketBLIPTransport(incoming: counted, peerHeaders: peerHeaders, subprotocol: subprotocol,
                                      remoteAddress: channel.remoteAddress.map(Self.describe),
                                      eventLoop: channel.eventLoop,
                                      handler: NIOLoopBound(handler, eventLoop: channel.eventLoop))
    }

    /// Sends one BLIP frame as a binary message.
    ///
    /// - Throws: ``BLIPWebSocketError/notConnected`` after ``close(code:reason:)``, or the
    ///   error that ended the connection.
    package func send(_ frame: [UInt8]) async throws {
        try await send(frame, opcode: .binary)
    }

    /// Sends BLIP frames as binary messages with one hop to the event loop, one write each and
    /// one flush for all; returns once the last is written to the socket (which keeps a fast
    /// sender from queueing without bound).
    ///
    /// - Throws: ``BLIPWebSocketError/notConnected`` after ``close(code:reason:)``, or the
    ///   error that ended the connection.
    package func send(frames: [[UInt8]]) async throws {
        let handler = handler
        let eventLoop = eventLoop
        do {
            try await eventLoop.flatSubmit { handler.value.send(frames: frames, on: eventLoop) }.get()
        } catch {
            throw BLIPWebSocketError(transport: error)
        }
    }

    /// Sends a message with any data opcode (tests use `.text` to play a misbehaving peer).
    func send(_ bytes: [UInt8], opcode: WebSocketOpcode) async throws {
        let handler = handler
        let eventLoop = eventLoop
        do {
            try await eventLoop.flatSubmit { handler.value.send(bytes, opcode: opcode, on: eventLoop) }.get()
        } catch {
            throw BLIPWebSocketError(transport: error)
        }
    }

    /// Sends a WebSocket close frame and returns once the connection is closed: when the peer
    /// answers with its close frame, or after the close timeout. Idempotent.
    package func close(code: UInt16 = 1000, reason: String = "") async {
        let handler = handler
        let eventLoop = eventLoop
        // Close is idempotent and best effort; a failed channel is closed already.
        try? await eventLoop.flatSubmit { handler.value.startClose(code: code, reason: reason, on: eventLoop) }.get()  // allowed: see above
    }

    private static func describe(_ address: SocketAddress) -> String {
        guard let ip = address.ipAddress, let port = address.port else { return "\(address)" }
        if case .v6 = address { return "[\(ip)]:\(port)" }
        return "\(ip):\(port)"
    }
}
