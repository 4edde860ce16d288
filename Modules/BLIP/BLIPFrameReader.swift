import CZlib

/// Reads the frames of one direction of a connection: checks each frame's running checksum,
/// inflates compressed frames (one inflate stream for the direction), reassembles multi-frame
/// messages and says when an ACK is due.
///
/// ```swift
/// var reader = BLIPFrameReader()
/// for try await frame in transport.incoming {
///     let output = try reader.read(frame)
///     if let ack = output.ackToSend { try await transport.send(ack.frame) }
///     if let message = output.message { handle(message) }
/// }
/// ```
///
/// Every malformed input throws `BLIPError.protocolViolation` (or `.messageTooLarge`); after a
/// throw the direction's checksum and deflate state are unusable and the connection must close.
/// Copies of a reader are independent (the inflate state is copied on write).
package struct BLIPFrameReader: Sendable {
    /// LiteCore's `kIncomingAckThreshold`: an ACK is due each time this many bytes of one
    /// message have arrived unacknowledged.
    package static let ackThreshold: UInt64 = 50_000
    /// The default ``maxMessageSize``: 64 MiB.
    package static let defaultMaxMessageSize = 64 << 20

    /// What one frame produced.
    package struct Output: Sendable, Equatable {
        /// The message this frame completed, if any.
        package var message: BLIPMessage?
        /// An ACK the peer sent (for one of our outgoing messages).
        package var receivedAck: BLIPAck?
        /// An ACK to send to the peer now.
        package var ackToSend: BLIPAck?
        /// Body bytes of a reply registered with `expectReply(to:streamingBody: true)`, handed
        /// on as they arrive (in order, before that reply's `message`, whose body is then empty).
        package var bodyChunk: (number: UInt64, bytes: [UInt8])?

        /// An output with the given parts.
        package init(message: BLIPMessage? = nil, receivedAck: BLIPAck? = nil, ackToSend: BLIPAck? = nil) {
            self.message = message
            self.receivedAck = receivedAck
            self.ackToSend = ackToSend
        }

        package static func == (lhs: Output, rhs: Output) -> Bool {
            lhs.message == rhs.message && lhs.receivedAck == rhs.receivedAck && lhs.ackToSend == rhs.ackToSend
                && lhs.bodyChunk?.number == rhs.bodyChunk?.number && lhs.bodyChunk?.bytes == rhs.bodyChunk?.bytes
        }
    }

    /// A message whose frames are still arriving.
    private struct Partial: Sendable {
        var flags: BLIPFrameFlags
        var payload: [UInt8] = []
        var bytesReceived: UInt64 = 0
        var unackedBytes: UInt64 = 0
        /// A reply whose body is handed on frame by frame rather than gathered.
        var streaming = false
        /// A streamed reply's properties, once their block has arrived whole.
        var properties: BLIPProperties?
    }

    private struct Key: Hashable, Sendable {
        var isReply: Bool
        var number: UInt64
    }

    /// The largest message payload (uncompressed) accepted; a larger one throws
    /// `BLIPError.messageTooLarge` before it is buffered.
    package var maxMessageSize: Int { limits.maxMessageSize }
    /// The bounds on messages under way (``BLIPLimits``).
    package let limits: BLIPLimits
    /// Whether replies must answer a request registered with ``expectReply(to:)``.
    package let checksReplyNumbers: Bool
    private var inflater: InflateStream?
    private var checksum: UInt32 = 0
    private var partials: [Key: Partial] = [:]
    /// The payload bytes `partials` hold together.
    private var incompleteBytes = 0
    private var lastRequestNumber: UInt64 = 0
    private var awaitedReplies: Set<UInt64> = []
    private var streamedReplies: Set<UInt64> = []

    /// - Parameters:
    ///   - maxMessageSize: the largest payload accepted (default 64 MiB).
    ///   - checksReplyNumbers: `true` (a connection) to reject replies to requests never
    ///     registered with ``expectReply(to:)``; `false` to accept any reply number (decoding
    ///     one direction of a capture).
    package init(maxMessageSize: Int = defaultMaxMessageSize, checksReplyNumbers: Bool = false) {
        var limits = BLIPLimits.default
        limits.maxMessageSize = maxMessageSize
        limits.maxIncompleteBytes = max(limits.maxIncompleteBytes, maxMessageSize)
        self.init(limits: limits, checksReplyNumbers: checksReplyNumbers)
    }

    /// A reader enforcing `limits` (a connection's).
    package init(limits: BLIPLimits, checksReplyNumbers: Bool) {
        self.limits = limits
        self.checksReplyNumbers = checksReplyNumbers
    }

    /// Registers a request sent in the other direction whose reply may now arrive.
    ///
    /// - Parameter streamingBody: `true` to receive a (non-error) reply's body in
    ///   ``Output/bodyChunk``s as its frames arrive, not gathered into its message; such a body
    ///   is not limited by ``maxMessageSize`` (a blob of any size).
    package mutating func expectReply(to number: UInt64, streamingBody: Bool = false) {
        awaitedReplies.insert(number)
        if streamingBody { streamedReplies.insert(number) }
    }

    /// Reads one frame.
    ///
    /// - Throws: `BLIPError.protocolViolation` for a malformed header, a checksum mismatch,
    ///   corrupt deflate data, a request number out of sequence, a reply nobody awaits or bad
    ///   properties; `BLIPError.messageTooLarge` past ``maxMessageSize``.
    package mutating func read(_ frame: [UInt8]) throws -> Output {
        var index = 0
        let number = try BLIPVarint.read(frame, at: &index, what: "frame message number")
        let flagsValue = try BLIPVarint.read(frame, at: &index, what: "frame flags")
        guard flagsValue <= 0x7F else {
            throw BLIPError.protocolViolation("frame flags 0x\(String(flagsValue, radix: 16)) have unknown bits set")
        }
        let flags = BLIPFrameFlags(rawValue: UInt8(flagsValue))
        let type = flags.type

        if type == BLIPFrameFlags.ackRequestType || type == BLIPFrameFlags.ackReplyType {
            // ACKs carry no checksum and do not pass through the inflate stream.
            let byteCount = try BLIPVarint.read(frame, at: &index, what: "ACK byte count")
            return Output(receivedAck: BLIPAck(acknowledgesReply: type == BLIPFrameFlags.ackReplyType,
                                               number: number, byteCount: byteCount))
        }
        guard let kind = BLIPMessage.Kind(rawValue: type) else {
            // Types 3, 6 and 7 are unassigned; LiteCore ignores them for forward compatibility.
            return Output()
        }
        guard frame.count - index >= 4 else {
            throw BLIPError.protocolViolation("frame of \(Self.describe(kind, number)) ends before its checksum")
        }

        let key = Key(isReply: kind != .request, number: number)
        var partial: Partial
        if let existing = partials.removeValue(forKey: key) {
            partial = existing
            incompleteBytes -= existing.payload.count
        } else {
            if flags.contains(.moreComing) && partials.count >= limits.maxOpenMessages {
                throw BLIPError.limitExceeded(
                    "more than \(limits.maxOpenMessages) incoming messages under way at once")
            }
            partial = try startMessage(kind, number: number, flags: flags)
        }

        let frameBytes = UInt64(frame.count - index)
        let body = Array(frame[index..<frame.count - 4])
        let sentChecksum = frame[frame.count - 4..<frame.count].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        // What this frame may add: the message's own room, and the connection's for all
        // messages under way together (checked as it inflates, so a bomb stops at the bound).
        let messageRoom = maxMessageSize - partial.payload.count
        let sharedRoom = limits.maxIncompleteBytes - incompleteBytes - partial.payload.count
        let room = max(0, min(messageRoom, sharedRoom))
        let overflow: BLIPError = messageRoom <= sharedRoom
            ? .messageTooLarge(limit: maxMessageSize)
            : .limitExceeded("incoming messages under way hold more than \(limits.maxIncompleteBytes) bytes")
        let start = partial.payload.count
        // An empty compressed frame carries no deflate data: LiteCore writes one when a
        // streamed body's final, empty read starts a new frame. Re-appending 00 00 FF FF there
        // would feed the inflater a block header the sender never wrote.
        if flags.contains(.compressed) && !body.isEmpty {
            do {
                try uniqueInflater().inflate(body + [0, 0, 0xFF, 0xFF], appendingTo: &partial.payload,
                                             limit: room, reportedLimit: maxMessageSize)
            } catch BLIPError.messageTooLarge {
                throw overflow
            }
        } else {
            guard body.count <= room else { throw overflow }
            partial.payload += body
        }
        partial.payload.withUnsafeBytes { bytes in
            let count = bytes.count - start
            guard count > 0, let base = bytes.baseAddress else { return }
            checksum = UInt32(truncatingIfNeeded: crc32(uLong(checksum), base.assumingMemoryBound(to: Bytef.self) + start,
                                                        uInt(count)))
        }
        guard sentChecksum == checksum else {
            throw BLIPError.protocolViolation(
                "checksum mismatch in a frame of \(Self.describe(kind, number)): the frame says "
                    + "\(Self.hex(sentChecksum)), its data gives \(Self.hex(checksum))")
        }

        var output = Output()
        if partial.streaming {
            if partial.properties == nil, let length = try Self.propertiesBlockLength(partial.payload) {
                partial.properties = try BLIPProperties.decode(from: partial.payload).properties
                partial.payload.removeFirst(length)
            }
            if partial.properties != nil && !partial.payload.isEmpty {
                output.bodyChunk = (number, partial.payload)
                partial.payload.removeAll(keepingCapacity: true)
            }
        }
        // LiteCore's MessageIn::acknowledge: count every frame (even the last) after its header.
        // Wrapping: a streamed reply has no size limit, and the counts only pace ACKs.
        partial.bytesReceived &+= frameBytes
        partial.unackedBytes &+= frameBytes
        if partial.unackedBytes >= Self.ackThreshold {
            output.ackToSend = BLIPAck(acknowledgesReply: kind != .request, number: number,
                                       byteCount: partial.bytesReceived)
            partial.unackedBytes = 0
        }

        if flags.contains(.moreComing) {
            incompleteBytes += partial.payload.count
            partials[key] = partial
        } else {
            if kind != .request {
                awaitedReplies.remove(number)
                streamedReplies.remove(number)
            }
            if partial.streaming {
                guard let properties = partial.properties else {
                    throw BLIPError.protocolViolation("\(Self.describe(kind, number)) ends inside its properties")
                }
                output.message = BLIPMessage(kind: kind, number: number, urgent: partial.flags.contains(.urgent),
                                             compressed: partial.flags.contains(.compressed),
                                             noReply: partial.flags.contains(.noReply), properties: properties)
            } else {
                output.message = try BLIPMessage(kind: kind, number: number, flags: partial.flags, payload: partial.payload)
            }
        }
        return output
    }

    /// Checks that a first frame may start a message, and starts it.
    private mutating func startMessage(_ kind: BLIPMessage.Kind, number: UInt64, flags: BLIPFrameFlags) throws -> Partial {
        if kind == .request {
            // Requests are numbered 1, 2, 3… per direction (LiteCore: pendingRequest()).
            guard number == lastRequestNumber &+ 1 else {
                let why = number <= lastRequestNumber ? "already finished" : "skips ahead"
                throw BLIPError.protocolViolation(
                    "request #\(number) is out of sequence (\(why); expected #\(lastRequestNumber &+ 1))")
            }
            lastRequestNumber = number
        } else if checksReplyNumbers && !awaitedReplies.contains(number) {
            throw BLIPError.protocolViolation(
                "\(Self.describe(kind, number)) answers no request awaiting a reply")
        }
        var messageFlags = flags
        messageFlags.remove(.moreComing)
        var partial = Partial(flags: messageFlags)
        partial.streaming = kind == .reply && streamedReplies.contains(number)
        return partial
    }

    /// The length of the properties block (its varint included) at the start of `payload`,
    /// or `nil` while it is incomplete.
    ///
    /// - Throws: `BLIPError.protocolViolation` for a length over BLIP's 100 KiB limit or a
    ///   varint that does not fit 64 bits: the peer's number is never used in arithmetic
    ///   before it is known to be small (a length near `UInt64.max` once crashed the process).
    static func propertiesBlockLength(_ payload: [UInt8]) throws -> Int? {
        var index = 0
        let declared: UInt64
        do {
            declared = try BLIPVarint.read(payload, at: &index, what: "properties length")
        } catch {
            // Only a varint cut short by the frame's end may be completed by the next frame.
            guard payload.count < BLIPVarint.maxLength,
                  payload.allSatisfy({ $0 & 0x80 != 0 }) else { throw error }
            return nil
        }
        guard declared <= UInt64(BLIPProperties.maxEncodedSize) else {
            throw BLIPError.protocolViolation(
                "properties length \(declared) is over BLIP's \(BLIPProperties.maxEncodedSize)-byte limit")
        }
        let total = index + Int(declared)
        return payload.count >= total ? total : nil
    }

    private mutating func uniqueInflater() throws -> InflateStream {
        try InflateStream.unique(&inflater, copy: { try InflateStream(copying: $0) }, make: { try InflateStream() })
    }

    private static func describe(_ kind: BLIPMessage.Kind, _ number: UInt64) -> String {
        switch kind {
        case .request: "request #\(number)"
        case .reply: "reply #\(number)"
        case .error: "error reply #\(number)"
        }
    }

    private static func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 8 - digits.count) + digits
    }
}
