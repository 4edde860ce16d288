/// An acknowledgement frame (ACKMSG / ACKRPY): how many bytes of one incoming message have
/// arrived, so its sender may send more. Counted as LiteCore does: every frame's bytes after the
/// frame header, checksum included (compressed size when compressed).
package struct BLIPAck: Sendable, Hashable {
    /// `true` for an ACKRPY (acknowledging a reply), `false` for an ACKMSG (a request).
    package var acknowledgesReply: Bool
    /// The acknowledged message's number.
    package var number: UInt64
    /// Total frame bytes of the message received so far.
    package var byteCount: UInt64

    /// An ACK of `byteCount` bytes of message `number`.
    package init(acknowledgesReply: Bool, number: UInt64, byteCount: UInt64) {
        self.acknowledgesReply = acknowledgesReply
        self.number = number
        self.byteCount = byteCount
    }

    /// The ACK frame: `varint(number)`, flags (type | urgent | noReply), `varint(byteCount)`;
    /// no checksum, and it does not pass through the deflate stream.
    package var frame: [UInt8] {
        var bytes: [UInt8] = []
        BLIPVarint.append(number, to: &bytes)
        let type = acknowledgesReply ? BLIPFrameFlags.ackReplyType : BLIPFrameFlags.ackRequestType
        bytes.append(type | BLIPFrameFlags.urgent.rawValue | BLIPFrameFlags.noReply.rawValue)
        BLIPVarint.append(byteCount, to: &bytes)
        return bytes
    }
}
