import LiteSupport

/// A BLIP connection over a transport: sends requests and awaits their replies, delivers the
/// peer's requests, and keeps the wire format (frames, checksums, deflate, ACK flow control)
/// to itself.
///
/// ```swift
/// let connection = BLIPConnection(transport: webSocket)
/// connection.start()
/// Task {
///     for await request in connection.requests {
///         await request.respond(body: Array(#"{"ok":true}"#.utf8))
///     }
/// }
/// let reply = try await connection.sendRequest(BLIPMessage(properties: ["Profile": "getCheckpoint"]))
/// await connection.close()
/// ```
///
/// Frames go out through one writer task, scheduled as LiteCore 2.8 does: messages take turns
/// frame by frame, urgent ones (and ACKs) queue ahead of normal ones that are already under
/// way, and a message pauses while 128,000 of its bytes are unacknowledged (flow control). Bad input from the peer closes the
/// connection (close code 1002, or 1009/1008 past a ``BLIPLimits`` bound, the error as reason)
/// and fails every pending request with it.
/// The connection runs until ``close(code:reason:)``, the peer's close or a failure.
package final class BLIPConnection: Sendable {
    /// The peer's requests, in arrival order. Finishes when the connection closes. Iterate it
    /// from one task. At most ``BLIPLimits/maxQueuedRequests`` wait here: then the reader stops
    /// reading frames until the consumer takes one.
    package let requests: AsyncStream<BLIPIncomingRequest>
    private let requestInput: AsyncStream<BLIPIncomingRequest>.Continuation
    private let requestGate: RequestGate
    private let transport: any BLIPTransport
    private let state: Locked<BLIPConnectionState>

    /// The zlib level compressed messages are sent with: 2, where LiteCore uses 6. Any level
    /// inflates the same on the other side; on the travel documents (deflated one by one with a
    /// sync flush, as BLIP sends them) 2 takes about a third of 6's CPU time and three quarters
    /// of 3's, for 19 % more bytes than 6 and 6 % more than 3 (deflate was a quarter of a push
    /// to a loopback listener at level 3). Level 1 is no faster and 6 % larger again.
    package static let defaultCompressionLevel: Int32 = 2

    /// - Parameters:
    ///   - maxMessageSize: the largest incoming message accepted (bytes, uncompressed); a
    ///     larger one closes the connection with `BLIPError.messageTooLarge`. Streamed reply
    ///     bodies (``sendRequest(_:replyBody:)``) are not limited by it.
    ///   - compressionLevel: the zlib level for compressed messages (6 gives LiteCore 2.8's bytes).
    package convenience init(transport: any BLIPTransport, maxMessageSize: Int = BLIPFrameReader.defaultMaxMessageSize,
                             compressionLevel: Int32 = BLIPConnection.defaultCompressionLevel) {
        var limits = BLIPLimits.default
        limits.maxMessageSize = maxMessageSize
        limits.maxIncompleteBytes = max(limits.maxIncompleteBytes, maxMessageSize)
        self.init(transport: transport, limits: limits, compressionLevel: compressionLevel)
    }

    /// A connection that closes when the peer breaks `limits` (close code 1009 for a message
    /// over the size limit, 1008 for the others; ``closeReason`` says which).
    package init(transport: any BLIPTransport, limits: BLIPLimits,
                 compressionLevel: Int32 = BLIPConnection.defaultCompressionLevel) {
        self.transport = transport
        let (queued, input) = AsyncStream<BLIPIncomingRequest>.makeStream()
        let gate = RequestGate(limit: limits.maxQueuedRequests)
        // The consuming end counts each request as taken.
        let taker = UnfoldingIterator(queued.makeAsyncIterator())
        requests = AsyncStream(unfolding: {
            let request = await taker.next()
            if request != nil { gate.taken() }
            return request
        })
        requestInput = input
        requestGate = gate
        state = Locked(BLIPConnectionState(limits: limits, compressionLevel: compressionLevel))
    }

    /// Starts reading and writing frames. Idempotent; does nothing once closed. Requests sent
    /// before `start()` wait in the outbox.
    package func start() {
        let begin = state.withLock { state in
            guard !state.started, state.closure == nil else { return false }
            state.started = true
            return true
        }
        guard begin else { return }
        let tasks = [Task(executorPreference: ThreadPoolExecutor.replication) { await self.runReader() },
                     Task(executorPreference: ThreadPoolExecutor.replication) { await self.runWriter() }]
        // A close that raced with start() found no tasks to cancel: cancel them here.
        let closed = state.withLock { state in
            state.tasks = tasks
            return state.closure != nil
        }
        if closed { tasks.forEach { $0.cancel() } }
    }

    /// Whether the connection has closed.
    package var isClosed: Bool { state.withLock { $0.closure != nil } }

    /// Why the connection closed: `nil` while open or after a clean close.
    package var closeReason: BLIPError? { state.withLock { $0.closure?.result } }

    /// Sends a request (numbered here, from 1) and returns the reply.
    ///
    /// Cancelling the calling task makes this throw `CancellationError` at once; the request is
    /// still sent and its reply, when it comes, is dropped.
    /// - Throws: `BLIPError.remote` for an ERR reply, `BLIPError.closed` (or the error that
    ///   closed the connection) if it closes first, `BLIPError.invalidMessage` when the message
    ///   cannot be encoded.
    package func sendRequest(_ message: BLIPMessage) async throws -> BLIPMessage {
        try await sendRequest(message, bodyHandler: nil)
    }

    /// Sends a request and hands its reply's body to `replyBody` piece by piece as frames
    /// arrive, never gathering it (a blob fetched from the peer); returns the reply's
    /// properties with an empty body once the last piece was handled. An ERR reply's body is
    /// its message, as usual, and is not handed on.
    ///
    /// `replyBody` runs on the connection's reader, one piece at a time in order; when it
    /// throws, this throws that error and the rest of the body is dropped.
    /// - Throws: what `replyBody` throws, and as ``sendRequest(_:)``.
    package func sendRequest(_ message: BLIPMessage,
                             replyBody: @escaping @Sendable ([UInt8]) throws -> Void) async throws -> BLIPMessage {
        try await sendRequest(message, bodyHandler: replyBody)
    }

    private func sendRequest(_ message: BLIPMessage,
                             bodyHandler: (@Sendable ([UInt8]) throws -> Void)?) async throws -> BLIPMessage {
        var request = message
        request.kind = .request
        request.noReply = false
        let outgoing = try BLIPOutgoingMessage(request)
        let caller = CallerToken()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<BLIPMessage, any Error>) in
                let (failure, wakeup) = state.withLock { state -> ((any Error)?, CheckedContinuation<Void, Never>?) in
                    if let closure = state.closure { return (closure.error, nil) }
                    // Checked under the lock the cancellation handler takes too, so exactly
                    // one of the two sees the call.
                    if Task.isCancelled { return (CancellationError(), nil) }
                    let number = state.nextRequestNumber
                    state.nextRequestNumber += 1
                    var numbered = outgoing
                    numbered.number = number
                    state.reader.expectReply(to: number, streamingBody: bodyHandler != nil)
                    state.pendingReplies[number] = .init(caller: ObjectIdentifier(caller),
                                                         deliver: { continuation.resume(with: $0) },
                                                         bodyHandler: bodyHandler)
                    return (nil, state.enqueue(.init(message: numbered, urgent: request.urgent)))
                }
                wakeup?.resume()
                if let failure { continuation.resume(throwing: failure) }
            }
        } onCancel: {
            let pending = state.withLock { state -> BLIPConnectionState.PendingReply? in
                guard let entry = state.pendingReplies.first(where: { $0.value.caller == ObjectIdentifier(caller) })
                else { return nil }
                state.pendingReplies.removeValue(forKey: entry.key)
                return entry.value
            }
            pending?.deliver(.failure(CancellationError()))
        }
    }

    /// Sends a request and returns at once; `onReply` gets the reply (or the error: an ERR
    /// reply, the connection closing, a message that cannot be encoded) once, on the
    /// connection's reader, so it must be quick and must not block.
    ///
    /// For a caller with many requests out at once (the pusher's revisions): no task and no
    /// continuation per request, and the reply is handled where it is read.
    package func sendRequest(_ message: BLIPMessage,
                             onReply: @escaping @Sendable (Result<BLIPMessage, any Error>) -> Void) {
        var request = message
        request.kind = .request
        request.noReply = false
        let outgoing: BLIPOutgoingMessage
        do {
            outgoing = try BLIPOutgoingMessage(request)
        } catch {
            onReply(.failure(error))
            return
        }
        let (failure, wakeup) = state.withLock { state -> (BLIPError?, CheckedContinuation<Void, Never>?) in
            if let closure = state.closure { return (closure.error, nil) }
            let number = state.nextRequestNumber
            state.nextRequestNumber += 1
            var numbered = outgoing
            numbered.number = number
            state.reader.expectReply(to: number)
            state.pendingReplies[number] = .init(caller: nil, deliver: onReply, bodyHandler: nil)
            return (nil, state.enqueue(.init(message: numbered, urgent: request.urgent)))
        }
        wakeup?.resume()
        if let failure { onReply(.failure(failure)) }
    }

    /// Sends a request that expects no reply (sets `noReply`); returns once its last frame is
    /// handed to the transport.
    ///
    /// - Throws: `BLIPError.closed` (or the error that closed the connection) if it closes
    ///   first; `BLIPError.invalidMessage` when the message cannot be encoded.
    package func sendNoReply(_ message: BLIPMessage) async throws {
        var request = message
        request.kind = .request
        request.noReply = true
        let outgoing = try BLIPOutgoingMessage(request)
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let (failure, wakeup) = state.withLock { state -> (BLIPError?, CheckedContinuation<Void, Never>?) in
                if let closure = state.closure { return (closure.error, nil) }
                var numbered = outgoing
                numbered.number = state.nextRequestNumber
                state.nextRequestNumber += 1
                return (nil, state.enqueue(.init(message: numbered, urgent: request.urgent, sent: continuation)))
            }
            wakeup?.resume()
            if let failure { continuation.resume(throwing: failure) }
        }
    }

    /// Sends a reply or ERR reply built by ``BLIPIncomingRequest``; returns once it is written
    /// or the connection closed.
    func sendReply(_ reply: BLIPMessage, bodySource: (any BLIPBodySource)? = nil) async {
        guard let outgoing = Self.encodeReply(reply, bodySource: bodySource) else { return }
        // A reply to a closed connection has nobody to reach; the close is reported once, by waitUntilClosed().
        try? await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in  // allowed: see above
            let (closed, wakeup) = state.withLock { state -> (BLIPError?, CheckedContinuation<Void, Never>?) in
                if let closure = state.closure { return (closure.error, nil) }
                return (nil, state.enqueue(.init(message: outgoing, urgent: reply.urgent, sent: continuation)))
            }
            wakeup?.resume()
            if let closed { continuation.resume(throwing: closed) }
        }
    }

    /// Queues a reply or ERR reply built by ``BLIPIncomingRequest`` and returns at once (dropped
    /// when the connection is closed): for a caller that must not suspend, and saves the caller
    /// a continuation and a task switch per reply.
    func queueReply(_ reply: BLIPMessage) {
        guard let outgoing = Self.encodeReply(reply, bodySource: nil) else { return }
        let wakeup = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard state.closure == nil else { return nil }
            return state.enqueue(.init(message: outgoing, urgent: reply.urgent))
        }
        wakeup?.resume()
    }

    /// A reply ready for the outbox; when it cannot be encoded, an ERR reply saying so, so the
    /// peer's caller is not left waiting.
    private static func encodeReply(_ reply: BLIPMessage, bodySource: (any BLIPBodySource)?) -> BLIPOutgoingMessage? {
        do {
            if let bodySource { return try BLIPOutgoingMessage(reply, bodySource: bodySource) }
            return try BLIPOutgoingMessage(reply)
        } catch {
            let fallback = BLIPMessage(kind: .error, number: reply.number, urgent: reply.urgent,
                                       properties: ["Error-Domain": "BLIP", "Error-Code": "500"],
                                       body: Array("reply could not be encoded: \(error)".utf8))
            return try? BLIPOutgoingMessage(fallback)  // allowed: a fixed ERR that cannot fail to encode
        }
    }

    /// Closes the connection and its transport: pending requests fail with
    /// `BLIPError.closed(code:reason:)`, ``requests`` finishes. Messages still queued are not
    /// sent. Idempotent.
    package func close(code: UInt16 = 1000, reason: String = "") async {
        await shutdown(result: nil,
                       error: .closed(code: code, reason: reason.isEmpty ? "closed by this side" : reason),
                       closeTransport: (code, reason))
    }

    /// Waits until the connection closes.
    ///
    /// - Returns: `nil` after a clean close (by this side, or by the peer with code 1000);
    ///   otherwise the error that ended it.
    package func waitUntilClosed() async -> BLIPError? {
        await withCheckedContinuation { (continuation: CheckedContinuation<BLIPError?, Never>) in
            let closed = state.withLock { state -> BLIPConnectionState.Closure? in
                if let closure = state.closure { return closure }
                state.closeWaiters.append(continuation)
                return nil
            }
            if let closed { continuation.resume(returning: closed.result) }
        }
    }

    // MARK: Tasks

    private func runReader() async {
        do {
            for try await frame in transport.incoming {
                let effects = state.withLock { $0.received(frame) }
                effects.wakeWriter?.resume()
                if let request = effects.request {
                    requestInput.yield(BLIPIncomingRequest(message: request, connection: self))
                    if requestGate.added() { await requestGate.waitForRoom() }
                }
                var handlerFailure: (number: UInt64, error: any Error)?
                if let chunk = effects.bodyChunk {
                    do {
                        try chunk.handler(chunk.bytes)
                    } catch {
                        handlerFailure = (chunk.number, error)
                    }
                }
                if let (deliver, result) = effects.reply {
                    if let handlerFailure, case let .success(reply) = result, reply.number == handlerFailure.number {
                        deliver(.failure(handlerFailure.error))
                    } else {
                        deliver(result.mapError { $0 })
                    }
                } else if let handlerFailure {
                    // Fails the call now; the rest of the reply is read and dropped.
                    let pending = state.withLock { $0.pendingReplies.removeValue(forKey: handlerFailure.number) }
                    pending?.deliver(.failure(handlerFailure.error))
                }
                if let failure = effects.failure {
                    await shutdown(result: failure, error: failure,
                                   closeTransport: (failure.closeCode, Self.closeReason(failure.description)))
                    return
                }
            }
            await shutdown(result: nil, error: .closed(code: 1000, reason: "the peer closed the connection"),
                           closeTransport: nil)
        } catch {
            let failure = error as? BLIPError ?? .closed(code: nil, reason: "the transport failed: \(error)")
            await shutdown(result: failure, error: failure, closeTransport: nil)
        }
    }

    /// Frames taken from the outbox for one transport write at most (bytes): enough to cover
    /// a burst of small messages and a few 16 KiB frames, small enough that ACKs and urgent
    /// messages queued meanwhile wait little.
    static let writeBatchBytes = 128 * 1024

    private func runWriter() async {
        var frames: [[UInt8]] = []
        var sent: [CheckedContinuation<Void, any Error>] = []
        while true {
            // Everything ready now goes out as one transport write (one socket write and flush
            // for a WebSocket), rather than one write, flush and wait per frame. The lock is
            // taken per frame, so the reader is never held up by a whole batch's deflating.
            var failure: BLIPError?
            var batchBytes = 0
            var stop = false
            frames.removeAll(keepingCapacity: true)
            sent.removeAll(keepingCapacity: true)
            collect: while batchBytes < Self.writeBatchBytes {
                switch state.withLock({ $0.nextWriterStep() }) {
                case .stop:
                    stop = true
                    break collect
                case .wait:
                    break collect
                case let .send(frame, done):
                    batchBytes += frame.count
                    frames.append(frame)
                    if let done { sent.append(done) }
                case let .fail(error):
                    failure = error
                    break collect
                }
            }
            if stop {
                // Closed meanwhile: what was cut is not sent, as with messages still queued.
                let error = state.withLock { $0.closure?.error } ?? .closed(code: nil, reason: "closed by this side")
                sent.forEach { $0.resume(throwing: error) }
                return
            }
            if !frames.isEmpty {
                do {
                    try await transport.send(frames: frames)
                    sent.forEach { $0.resume() }
                } catch {
                    let failure = error as? BLIPError ?? .closed(code: nil, reason: "sending a frame failed: \(error)")
                    let final = await shutdown(result: failure, error: failure, closeTransport: nil)
                    sent.forEach { $0.resume(throwing: final) }
                    return
                }
            }
            if let failure {
                await shutdown(result: failure, error: failure, closeTransport: (1011, Self.closeReason(failure.description)))
                return
            }
            if frames.isEmpty {
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let resumeNow = state.withLock { state in
                        if state.closure != nil || !state.outbox.isEmpty { return true }
                        state.writerWakeup = continuation
                        return false
                    }
                    if resumeNow { continuation.resume() }
                }
            }
        }
    }

    /// A WebSocket close reason holds at most 123 bytes of UTF-8 (RFC 6455 §5.5: control
    /// frames carry 125 bytes, two of them the code); cut at a character boundary.
    static func closeReason(_ text: String) -> String {
        var reason = ""
        var length = 0
        for character in text {
            length += character.utf8.count
            if length > 123 { break }
            reason.append(character)
        }
        return reason
    }

    /// Ends the connection once (later calls only report how it ended): fails everything
    /// waiting, finishes ``requests``, optionally closes the transport, stops the tasks.
    ///
    /// - Returns: the error operations now fail with (the first shutdown's).
    @discardableResult
    private func shutdown(result: BLIPError?, error: BLIPError, closeTransport: (UInt16, String)?) async -> BLIPError {
        typealias Taken = (replies: [BLIPConnectionState.PendingReply], sends: [CheckedContinuation<Void, any Error>],
                           writer: CheckedContinuation<Void, Never>?, waiters: [CheckedContinuation<BLIPError?, Never>],
                           tasks: [Task<Void, Never>])
        let taken = state.withLock { state -> Result<Taken, BLIPError> in
            if let closure = state.closure { return .failure(closure.error) }
            state.closure = .init(result: result, error: error)
            let taken: Taken = (Array(state.pendingReplies.values), (state.outbox + state.icebox).compactMap(\.sent),
                                state.writerWakeup, state.closeWaiters, state.tasks)
            state.pendingReplies = [:]
            state.outbox = []
            state.icebox = []
            state.writerWakeup = nil
            state.closeWaiters = []
            state.tasks = []
            return .success(taken)
        }
        guard case let .success(taken) = taken else {
            if case let .failure(existing) = taken { return existing }
            return error
        }
        taken.replies.forEach { $0.deliver(.failure(error)) }
        taken.sends.forEach { $0.resume(throwing: error) }
        taken.writer?.resume()
        requestInput.finish()
        requestGate.close()
        if let (code, reason) = closeTransport {
            await transport.close(code: code, reason: reason)
        }
        taken.waiters.forEach { $0.resume(returning: result) }
        // Stops the reader's wait for frames (and is harmless for the task running this).
        taken.tasks.forEach { $0.cancel() }
        return error
    }
}

/// Identifies one `sendRequest` call for its cancellation handler.
private final class CallerToken: Sendable {}
