/// A message being sent: its payload, how far its frames have got, and how much of it the peer
/// has acknowledged (LiteCore's `MessageOut`). ``BLIPFrameWriter`` cuts frames from it.
package struct BLIPOutgoingMessage: Sendable {
    /// LiteCore's `MessageOut::kMaxUnackedBytes`: a message stops sending frames while this many
    /// of its bytes are unacknowledged.
    package static let maxUnackedBytes: UInt64 = 128_000

    /// LiteCore's `kDataBufferSize`: a streamed body (a blob) is read from its source in pieces
    /// of this size, and each piece goes through the codec as a separate write.
    package static let dataSourceChunkSize = 16_384

    /// The message number (the connection assigns request numbers when it queues them).
    package internal(set) var number: UInt64
    /// The flags every frame carries (`moreComing` is added per frame).
    package let flags: BLIPFrameFlags
    /// The bytes not yet handed on: the whole payload, or with a ``BLIPBodySource`` the
    /// properties and then the current piece read from it (earlier pieces are dropped).
    private(set) var payload: [UInt8]
    /// Where each codec write ends: LiteCore hands the codec the whole payload at once, or, for
    /// a body streamed from a data source, the properties and then each 16 KiB read. The split
    /// changes the deflate output, so it is kept to reproduce LiteCore's frames.
    private var segmentEnds: [Int]
    /// Where the rest of the body comes from, until a short read ends it.
    private var source: (any BLIPBodySource)?
    /// Bytes of `payload` already handed to the codec.
    var position = 0
    /// A streamed body whose length is a multiple of the read size ends with one empty read,
    /// which LiteCore only notices when asked for more data (possibly an extra, empty frame).
    var pendingEmptyRead: Bool
    /// Frame bytes after the headers sent so far, checksums included (what ACKs count).
    package internal(set) var bytesSent: UInt64 = 0
    /// Frame bytes the peer has not acknowledged yet.
    package internal(set) var unackedBytes: UInt64 = 0

    /// Prepares `message` for sending (its number must be assigned already).
    ///
    /// - Parameter streamingBody: `true` to feed the body to the codec in 16 KiB pieces, as
    ///   LiteCore does for a body read from a data source (blob replies to `getAttachment`);
    ///   only the compressed bytes differ, the message is the same.
    /// - Throws: `BLIPError.invalidMessage` when the properties cannot be encoded.
    package init(_ message: BLIPMessage, streamingBody: Bool = false) throws {
        number = message.number
        flags = BLIPFrameFlags(message)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(message.body.count + 64)
        try message.properties.encode(into: &bytes)
        if streamingBody {
            var ends = [bytes.count]
            var offset = 0
            while offset < message.body.count {
                offset = min(offset + Self.dataSourceChunkSize, message.body.count)
                ends.append(bytes.count + offset)
            }
            segmentEnds = ends
            pendingEmptyRead = message.body.count.isMultiple(of: Self.dataSourceChunkSize)
        } else {
            segmentEnds = [bytes.count + message.body.count]
            pendingEmptyRead = false
        }
        bytes += message.body
        payload = bytes
    }

    /// Prepares `message` (whose own body is ignored) with its body read from `source` in
    /// 16 KiB pieces as frames go out: the same frames as `streamingBody: true` with the whole
    /// body, without ever holding it.
    ///
    /// - Throws: `BLIPError.invalidMessage` when the properties cannot be encoded.
    package init(_ message: BLIPMessage, bodySource: any BLIPBodySource) throws {
        number = message.number
        flags = BLIPFrameFlags(message)
        var bytes: [UInt8] = []
        try message.properties.encode(into: &bytes)
        segmentEnds = [bytes.count]
        payload = bytes
        pendingEmptyRead = false
        source = bodySource
    }

    /// Whether frames remain to be sent.
    package var hasMoreFrames: Bool { position < payload.count || pendingEmptyRead || source != nil }

    /// Whether the message must wait for an ACK before its next frame.
    package var needsAck: Bool { unackedBytes >= Self.maxUnackedBytes }

    /// Records the peer's ACK of `byteCount` bytes (ignored if it claims more than was sent).
    package mutating func receivedAck(byteCount: UInt64) {
        if byteCount <= bytesSent {
            unackedBytes = min(unackedBytes, bytesSent - byteCount)
        }
    }

    /// How many bytes are left when they all go to the codec as one piece (no body source, no
    /// further segment, no pending empty read); nil otherwise.
    var remainingAsOnePiece: Int? {
        guard source == nil, !pendingEmptyRead else { return nil }
        let end = segmentEnds.first { $0 > position } ?? payload.count
        return end == payload.count ? payload.count - position : nil
    }

    /// The next piece for the codec: the rest of the current segment (empty at the end). With a
    /// body source, the next read once the current one is used up.
    ///
    /// - Throws: what the body source throws.
    mutating func nextSegment() throws -> Range<Int> {
        if position >= payload.count, let reading = source {
            let piece = try reading.read(maxLength: Self.dataSourceChunkSize)
            // LiteCore's MessageOut stops at a short read; a full one may be followed by an empty one.
            if piece.count < Self.dataSourceChunkSize { source = nil }
            payload = piece
            position = 0
            segmentEnds = [piece.count]
            return 0..<piece.count
        }
        if position >= payload.count {
            pendingEmptyRead = false
            return position..<position
        }
        let end = segmentEnds.first { $0 > position } ?? payload.count
        return position..<end
    }
}
