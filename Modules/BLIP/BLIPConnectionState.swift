/// Everything a ``BLIPConnection`` keeps between events, behind its one lock: the two framing
/// directions, the outbox, requests awaiting replies, and how the connection ended.
///
/// Methods here never suspend; they return what the connection must do once the lock is released
/// (resume a continuation, deliver a request, close).
struct BLIPConnectionState {
    /// A message waiting for (more of) its frames to go out, or an ACK.
    struct OutboxEntry {
        /// `nil` for an ACK.
        var message: BLIPOutgoingMessage?
        var ackFrame: [UInt8] = []
        var urgent: Bool
        /// Resumed once the last frame is handed to the transport.
        var sent: CheckedContinuation<Void, any Error>?

        var isReply: Bool { message.map { $0.flags.type != BLIPMessage.Kind.request.rawValue } ?? false }
        var bytesSent: UInt64 { message?.bytesSent ?? 0 }
    }

    /// A request of ours awaiting its reply.
    struct PendingReply {
        /// Identifies the waiting call, so its cancellation can find it (nil: a reply handler).
        var caller: ObjectIdentifier?
        /// Gets the reply or the error (resumes the awaiting call, or runs the caller's handler).
        var deliver: @Sendable (Result<BLIPMessage, any Error>) -> Void
        /// Takes the reply's body piece by piece (then the reply comes with an empty body).
        var bodyHandler: (@Sendable ([UInt8]) throws -> Void)?
    }

    /// How the connection ended.
    struct Closure {
        /// What `waitUntilClosed()` returns: `nil` for a clean close.
        var result: BLIPError?
        /// What operations still in progress, or started later, fail with.
        var error: BLIPError
    }

    /// The next thing the writer task should do.
    enum WriterStep {
        case send(frame: [UInt8], sent: CheckedContinuation<Void, any Error>?)
        case wait
        case stop
        case fail(BLIPError)
    }

    /// What a received frame asks the connection to do.
    struct ReadEffects {
        var request: BLIPMessage?
        var reply: (deliver: @Sendable (Result<BLIPMessage, any Error>) -> Void, result: Result<BLIPMessage, BLIPError>)?
        /// A piece of a streamed reply's body, for its handler (called before `reply`).
        var bodyChunk: (number: UInt64, bytes: [UInt8], handler: @Sendable ([UInt8]) throws -> Void)?
        var wakeWriter: CheckedContinuation<Void, Never>?
        var failure: BLIPError?
    }

    var reader: BLIPFrameReader
    var writer: BLIPFrameWriter
    var started = false
    var nextRequestNumber: UInt64 = 1
    var pendingReplies: [UInt64: PendingReply] = [:]
    var outbox: [OutboxEntry] = []
    /// Messages paused until the peer ACKs enough of them.
    var icebox: [OutboxEntry] = []
    var writerWakeup: CheckedContinuation<Void, Never>?
    var closure: Closure?
    var closeWaiters: [CheckedContinuation<BLIPError?, Never>] = []
    var tasks: [Task<Void, Never>] = []

    init(maxMessageSize: Int) {
        var limits = BLIPLimits.default
        limits.maxMessageSize = maxMessageSize
        self.init(limits: limits)
    }

    init(limits: BLIPLimits, compressionLevel: Int32 = BLIPConnection.defaultCompressionLevel) {
        writer = BLIPFrameWriter(compressionLevel: compressionLevel)
        reader = BLIPFrameReader(limits: limits, checksReplyNumbers: true)
    }

    /// Queues an entry as LiteCore's `BLIPIO::requeue` does: normal entries at the end; an
    /// urgent one after the last urgent entry (leaving one normal entry in between if there is
    /// one), but never ahead of a normal message that has not started, since the peer must
    /// see new requests in number order. The front entry always keeps its turn.
    ///
    /// - Returns: the writer's wake-up, to resume outside the lock.
    mutating func enqueue(_ entry: OutboxEntry) -> CheckedContinuation<Void, Never>? {
        var position = outbox.endIndex
        if entry.urgent && outbox.count > 1 {
            let isNew = entry.bytesSent == 0
            repeat {
                position -= 1
                if outbox[position].urgent {
                    if position + 1 != outbox.endIndex { position += 1 }
                    break
                } else if isNew && outbox[position].bytesSent == 0 {
                    break
                }
            } while position != outbox.startIndex
            position += 1
        }
        outbox.insert(entry, at: position)
        defer { writerWakeup = nil }
        return writerWakeup
    }

    /// Cuts the next frame from the front of the outbox, then sends that message to the back
    /// of the queue (LiteCore's round robin) or, when 128,000 of its bytes are unacknowledged,
    /// to the icebox. Frame size as LiteCore's `writeToWebSocket`: 16 KiB, or 4 KiB for a
    /// normal message while an urgent one is next in line.
    mutating func nextWriterStep() -> WriterStep {
        if closure != nil { return .stop }
        guard !outbox.isEmpty else { return .wait }
        var entry = outbox.removeFirst()
        guard var message = entry.message else { return .send(frame: entry.ackFrame, sent: nil) }
        let urgentNext = outbox.first?.urgent ?? false
        let frameSize = entry.urgent || !urgentNext ? BLIPFrameWriter.bigFrameSize : BLIPFrameWriter.defaultFrameSize
        let frame: [UInt8]
        do {
            frame = try writer.nextFrame(of: &message, maxFrameSize: frameSize)
        } catch {
            entry.sent?.resume(throwing: error)
            return .fail(error as? BLIPError ?? .invalidMessage("\(error)"))
        }
        entry.message = message
        guard message.hasMoreFrames else { return .send(frame: frame, sent: entry.sent) }
        if message.needsAck {
            icebox.append(entry)
        } else {
            _ = enqueue(entry)  // the writer is the caller: nobody to wake
        }
        return .send(frame: frame, sent: nil)
    }

    /// Handles one incoming frame.
    mutating func received(_ frame: [UInt8]) -> ReadEffects {
        var effects = ReadEffects()
        guard closure == nil else { return effects }
        let output: BLIPFrameReader.Output
        do {
            output = try reader.read(frame)
        } catch {
            effects.failure = error as? BLIPError ?? .protocolViolation("\(error)")
            return effects
        }
        if let ack = output.ackToSend {
            effects.wakeWriter = enqueue(OutboxEntry(message: nil, ackFrame: ack.frame, urgent: true))
        }
        if let ack = output.receivedAck, let wakeup = receivedAck(ack) {
            effects.wakeWriter = wakeup
        }
        // No handler when the caller was cancelled or its handler failed: the piece is dropped.
        if let chunk = output.bodyChunk, let handler = pendingReplies[chunk.number]?.bodyHandler {
            effects.bodyChunk = (chunk.number, chunk.bytes, handler)
        }
        if let message = output.message {
            switch message.kind {
            case .request:
                effects.request = message
            case .reply, .error:
                // No entry when the caller was cancelled: the reply is dropped.
                if let pending = pendingReplies.removeValue(forKey: message.number) {
                    effects.reply = (pending.deliver,
                                     message.kind == .reply ? .success(message) : .failure(Self.remoteError(message)))
                }
            }
        }
        return effects
    }

    /// Applies the peer's ACK to the outgoing message it names, thawing it if it was paused.
    private mutating func receivedAck(_ ack: BLIPAck) -> CheckedContinuation<Void, Never>? {
        let matches = { (entry: OutboxEntry) in
            entry.message?.number == ack.number && entry.isReply == ack.acknowledgesReply
        }
        if let index = outbox.firstIndex(where: matches) {
            outbox[index].message?.receivedAck(byteCount: ack.byteCount)
            return nil
        }
        guard let index = icebox.firstIndex(where: matches) else { return nil }
        icebox[index].message?.receivedAck(byteCount: ack.byteCount)
        guard icebox[index].message?.needsAck == false else { return nil }
        return enqueue(icebox.remove(at: index))
    }

    /// The error an ERR reply stands for.
    static func remoteError(_ message: BLIPMessage) -> BLIPError {
        .remote(domain: message.properties["Error-Domain"] ?? "BLIP",
                code: message.properties["Error-Code"].flatMap { Int($0) } ?? 0,
                message: String(decoding: message.body, as: UTF8.self))
    }
}
