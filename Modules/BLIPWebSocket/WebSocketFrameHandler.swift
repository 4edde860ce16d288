import NIOCore
import NIOWebSocket

/// The end of an upgraded channel's pipeline: turns WebSocket messages into BLIP frames for
/// ``WebSocketBLIPTransport/incoming`` and BLIP frames into binary messages, and runs the
/// WebSocket control protocol (ping → pong, the close handshake).
///
/// All state lives on the channel's event loop; the transport reaches it through
/// `NIOLoopBound`. Incoming messages are yielded in arrival order and outgoing ones are written
/// in call order, so BLIP frames keep their order both ways. Reads from the socket are held
/// back while the frames handed on and not yet taken pass ``IncomingFlow/limit``.
final class WebSocketFrameHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    /// Which end of the WebSocket this is: a client masks what it sends (RFC 6455 §5.3).
    enum Role: Sendable {
        case client, server
    }

    private enum State {
        /// Messages flow both ways.
        case open
        /// We sent a close frame and wait for the peer's (or the timeout).
        case closeSent
        /// The peer's close frame came first; we echoed it and close the connection.
        case closeReceived
        /// The connection is gone.
        case closed
    }

    private let role: Role
    private let maxMessageSize: Int
    private let closeTimeout: TimeAmount
    private let continuation: AsyncThrowingStream<[UInt8], any Error>.Continuation
    private var context: ChannelHandlerContext?
    private var state = State.open
    /// A binary message whose later fragments are still to come.
    private var fragments: [UInt8]?
    private var incomingFinished = false
    /// Why sends fail once the connection is over.
    private var terminalError = BLIPWebSocketError.notConnected
    private var closeTimer: Scheduled<Void>?
    /// Keep-alive interval (nil: no pings), the repeating ping, and the deadline of the
    /// unanswered one.
    private let heartbeat: TimeAmount?
    private var heartbeatTask: RepeatedTask?
    private var pongDeadline: Scheduled<Void>?
    /// LiteCore waits 10 s for a pong (shorter heartbeats wait one interval, but never less
    /// than `minimumPongWait`).
    static let pongTimeout = TimeAmount.seconds(10)
    /// A loaded machine can take this long to answer a ping: with a wait of one short interval,
    /// every new connection was declared dead before it was used (seen with a 0.5 s heartbeat
    /// under the thread sanitizer), and the replicator never got through.
    static let minimumPongWait = TimeAmount.seconds(2)
    /// Idle timeout (server side): the peer must send something, if only a pong, this often.
    private let idleTimeout: TimeAmount?
    private var idleTask: RepeatedTask?
    private var heardFromPeer = false
    private var idlePingSent = false
    /// Received bytes not yet taken by the reader, and a read held back meanwhile.
    let flow: IncomingFlow
    private var heldRead = false
    /// Gets a line when the idle timeout closes the connection.
    private let log: (@Sendable (String) -> Void)?

    init(role: Role, maxMessageSize: Int, closeTimeout: TimeAmount,
         continuation: AsyncThrowingStream<[UInt8], any Error>.Continuation, heartbeat: TimeAmount? = nil,
         idleTimeout: TimeAmount? = nil, flow: IncomingFlow = IncomingFlow(limit: Int.max),
         log: (@Sendable (String) -> Void)? = nil) {
        self.role = role
        self.maxMessageSize = maxMessageSize
        self.closeTimeout = closeTimeout
        self.continuation = continuation
        self.heartbeat = heartbeat
        self.idleTimeout = idleTimeout
        self.flow = flow
        self.log = log
    }

    // MARK: Calls from the transport (on the event loop)

    /// Writes one message (binary for BLIP; tests also send text); the future completes once it
    /// is handed to the socket.
    func send(_ bytes: [UInt8], opcode: WebSocketOpcode = .binary, on eventLoop: any EventLoop) -> EventLoopFuture<Void> {
        guard let context, case .open = state else {
            return eventLoop.makeFailedFuture(terminalError)
        }
        let frame = WebSocketFrame(fin: true, opcode: opcode, maskKey: maskKey(),
                                   data: context.channel.allocator.buffer(bytes: bytes))
        return context.writeAndFlush(wrapOutboundOut(frame))
    }

    /// Writes several binary messages and flushes once; the future completes once the last is
    /// handed to the socket.
    func send(frames: [[UInt8]], on eventLoop: any EventLoop) -> EventLoopFuture<Void> {
        guard let context, case .open = state else {
            return eventLoop.makeFailedFuture(terminalError)
        }
        guard let last = frames.indices.last else { return eventLoop.makeSucceededVoidFuture() }
        let promise = eventLoop.makePromise(of: Void.self)
        for index in frames.indices {
            let frame = WebSocketFrame(fin: true, opcode: .binary, maskKey: maskKey(),
                                       data: context.channel.allocator.buffer(bytes: frames[index]))
            context.write(wrapOutboundOut(frame), promise: index == last ? promise : nil)
        }
        context.flush()
        return promise.futureResult
    }

    /// Starts the close handshake (if nothing closed the connection yet); the future completes
    /// when the connection is closed — on the peer's close frame, or after the close timeout.
    func startClose(code: UInt16, reason: String, on eventLoop: any EventLoop) -> EventLoopFuture<Void> {
        guard let context else { return eventLoop.makeSucceededVoidFuture() }
        let channel = context.channel
        if case .open = state {
            state = .closeSent
            writeClose(code: code, reason: reason, context: context)
            closeTimer = eventLoop.scheduleTask(in: closeTimeout) { channel.close(promise: nil) }
        }
        return channel.closeFuture
    }

    // MARK: ChannelHandler

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        if let idleTimeout, idleTimeout > .zero {
            let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
            let tick = TimeAmount.nanoseconds(max(idleTimeout.nanoseconds / 2, 1))
            idleTask = context.eventLoop.scheduleRepeatedTask(initialDelay: tick, delay: tick) { _ in
                handler.value.idleTick()
            }
        }
        if let heartbeat, heartbeat > .zero {
            let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
            heartbeatTask = context.eventLoop.scheduleRepeatedTask(initialDelay: heartbeat, delay: heartbeat) { _ in
                handler.value.beat()
            }
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        stopHeartbeat()
        self.context = nil
        finishIncoming(throwing: .connectionLost)
    }

    func read(context: ChannelHandlerContext) {
        if flow.isPaused {
            heldRead = true
        } else {
            context.read()
        }
    }

    /// The reader took enough frames: the read held back goes out now.
    func resumeReading() {
        guard heldRead, let context else { return }
        heldRead = false
        context.read()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        heardFromPeer = true
        switch frame.opcode {
        case .binary:
            guard fragments == nil else {
                return fail(code: 1002, .protocolError("a new message began inside a fragmented one"), context: context)
            }
            let bytes = Self.payload(of: frame)
            if frame.fin { deliver(bytes, context: context) } else { fragments = bytes }
        case .continuation:
            guard var message = fragments else {
                return fail(code: 1002, .protocolError("continuation frame without a message"), context: context)
            }
            message.append(contentsOf: Self.payload(of: frame))
            if frame.fin {
                fragments = nil
                deliver(message, context: context)
            } else if message.count > maxMessageSize {
                fail(code: 1009, .protocolError("message larger than \(maxMessageSize) bytes"), context: context)
            } else {
                fragments = message
            }
        case .text:
            fail(code: 1003, .protocolError("the peer sent a text message; BLIP frames are binary"), context: context)
        case .ping:
            switch state {
            case .open, .closeSent:
                let pong = WebSocketFrame(fin: true, opcode: .pong, maskKey: maskKey(), data: frame.unmaskedData)
                context.writeAndFlush(wrapOutboundOut(pong), promise: nil)
            case .closeReceived, .closed:
                break
            }
        case .pong:
            pongDeadline?.cancel()
            pongDeadline = nil
        case .connectionClose:
            peerClosed(frame, context: context)
        default:
            fail(code: 1002, .protocolError("unknown opcode \(frame.opcode)"), context: context)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        let previous = state
        state = .closed
        closeTimer?.cancel()
        stopHeartbeat()
        switch previous {
        case .closeSent:
            finishIncoming(throwing: nil)       // we asked to close; the peer may just hang up
        case .open, .closeReceived, .closed:
            finishIncoming(throwing: .connectionLost)
        }
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if case .closeSent = state {
            finishIncoming(throwing: nil)
        } else {
            finishIncoming(throwing: BLIPWebSocketError(transport: error))
        }
        state = .closed
        context.close(promise: nil)
    }

    // MARK: Helpers

    /// One keep-alive tick: a ping, which must be answered within the pong timeout (or the
    /// interval, if shorter, but at least `minimumPongWait`).
    private func beat() {
        guard let context, case .open = state, let heartbeat else { return stopHeartbeat() }
        if pongDeadline == nil {
            let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
            pongDeadline = context.eventLoop.scheduleTask(in: min(max(heartbeat, Self.minimumPongWait), Self.pongTimeout)) {
                handler.value.pongMissing()
            }
        }
        let ping = WebSocketFrame(fin: true, opcode: .ping, maskKey: maskKey(), data: context.channel.allocator.buffer(capacity: 0))
        context.writeAndFlush(wrapOutboundOut(ping), promise: nil)
    }

    /// No pong in time: the peer (or the path to it) is gone though TCP has not noticed. The
    /// connection ends as lost, so the replicator retries as after any drop (LiteCore's
    /// heartbeat closes the socket likewise).
    private func pongMissing() {
        pongDeadline = nil
        stopHeartbeat()
        guard let context, case .open = state else { return }
        finishIncoming(throwing: .connectionLost)
        state = .closed
        context.close(promise: nil)
    }

    private func stopHeartbeat() {
        heartbeatTask?.cancel()
        heartbeatTask = nil
        pongDeadline?.cancel()
        pongDeadline = nil
        idleTask?.cancel()
        idleTask = nil
    }

    /// Half an idle timeout passed: fine if the peer sent anything; else ping it, and if it
    /// already had its ping and still said nothing, close (1001).
    private func idleTick() {
        guard let context, case .open = state, let idleTimeout else { return }
        if heardFromPeer {
            heardFromPeer = false
            idlePingSent = false
        } else if idlePingSent {
            idleTask?.cancel()
            idleTask = nil
            let seconds = idleTimeout.nanoseconds / 1_000_000_000
            log?("closed the connection from \(BLIPWebSocketServer.describe(context.channel.remoteAddress)): "
                 + "nothing received for \(seconds) s, not even a pong")
            fail(code: 1001, .protocolError("the peer sent nothing for \(seconds) s"), context: context,
                 reason: "idle for \(seconds) s")
        } else {
            idlePingSent = true
            let ping = WebSocketFrame(fin: true, opcode: .ping, maskKey: maskKey(),
                                      data: context.channel.allocator.buffer(capacity: 0))
            context.writeAndFlush(wrapOutboundOut(ping), promise: nil)
        }
    }

    private func deliver(_ message: [UInt8], context: ChannelHandlerContext) {
        guard message.count <= maxMessageSize else {
            return fail(code: 1009, .protocolError("message larger than \(maxMessageSize) bytes"), context: context)
        }
        guard !incomingFinished else { return }
        _ = flow.delivered(message.count)
        continuation.yield(message)
    }

    /// The peer's close frame: either its answer to ours, or its own request to close.
    private func peerClosed(_ frame: WebSocketFrame, context: ChannelHandlerContext) {
        var payload = frame.unmaskedData
        let code = payload.readInteger(as: UInt16.self)
        let reason = payload.readString(length: payload.readableBytes) ?? ""
        switch state {
        case .open:
            state = .closeReceived
            // Before the echo: its write may complete at once and close the channel, which
            // would otherwise report a lost connection first.
            // No status code (1005) counts as normal, as LiteCore does.
            if let code, code != 1000 {
                finishIncoming(throwing: .closed(code: code, reason: reason))
            } else {
                finishIncoming(throwing: nil)
            }
            // RFC 6455 §5.5.1: answer with a close frame, echoing the status code.
            var echo = context.channel.allocator.buffer(capacity: 2)
            if let code { echo.writeInteger(code) }
            let channel = context.channel
            context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .connectionClose,
                                                                 maskKey: maskKey(), data: echo)))
                .whenComplete { _ in channel.close(promise: nil) }
        case .closeSent:
            state = .closed
            closeTimer?.cancel()
            finishIncoming(throwing: nil)
            context.close(promise: nil)
        case .closeReceived, .closed:
            break
        }
    }

    /// Ends the connection for a protocol violation: close frame with `code`, then hang up.
    private func fail(code: UInt16, _ error: BLIPWebSocketError, context: ChannelHandlerContext, reason: String = "") {
        fragments = nil
        finishIncoming(throwing: error)
        guard case .open = state else { return }
        state = .closeSent
        let channel = context.channel
        writeClose(code: code, reason: reason, context: context)
        closeTimer = context.eventLoop.scheduleTask(in: closeTimeout) { channel.close(promise: nil) }
    }

    private func writeClose(code: UInt16, reason: String, context: ChannelHandlerContext) {
        var payload = context.channel.allocator.buffer(capacity: 2 + reason.utf8.count)
        payload.writeInteger(code)
        // A control frame's payload is at most 125 bytes (RFC 6455 §5.5).
        payload.writeBytes(reason.utf8.prefix(123))
        let frame = WebSocketFrame(fin: true, opcode: .connectionClose, maskKey: maskKey(), data: payload)
        context.writeAndFlush(wrapOutboundOut(frame), promise: nil)
    }

    private func finishIncoming(throwing error: BLIPWebSocketError?) {
        guard !incomingFinished else { return }
        incomingFinished = true
        if let error {
            terminalError = error
            continuation.finish(throwing: error)
        } else {
            continuation.finish()
        }
    }

    /// A data frame's payload, unmasked while copied out: eight bytes per XOR (NIO's
    /// `unmaskedData` goes byte by byte, which showed in profiles of blob transfers).
    static func payload(of frame: WebSocketFrame) -> [UInt8] {
        var bytes = Array(buffer: frame.data)
        guard let key = frame.maskKey else { return bytes }
        // No extension is negotiated; should one be, NIO's unmasking knows the offset.
        guard frame.extensionData == nil else { return Array(buffer: frame.unmaskedData) }
        let keyBytes = [key[key.startIndex], key[key.startIndex + 1], key[key.startIndex + 2], key[key.startIndex + 3]]
        var pattern: UInt64 = 0
        withUnsafeMutableBytes(of: &pattern) { word in
            for index in 0..<8 { word[index] = keyBytes[index % 4] }
        }
        bytes.withUnsafeMutableBytes { raw in
            let wordCount = raw.count / 8
            for word in 0..<wordCount {
                let value = raw.loadUnaligned(fromByteOffset: word * 8, as: UInt64.self) ^ pattern
                raw.storeBytes(of: value, toByteOffset: word * 8, as: UInt64.self)
            }
            for index in (wordCount * 8)..<raw.count { raw[index] ^= keyBytes[index % 4] }
        }
        return bytes
    }

    private func maskKey() -> WebSocketMaskingKey? {
        role == .client ? .random() : nil
    }
}
