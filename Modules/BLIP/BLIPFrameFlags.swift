/// The flag byte after a frame's message number (BLIPProtocol.hh): the message type in the low
/// three bits, then compressed, urgent, no-reply and more-coming bits.
package struct BLIPFrameFlags: OptionSet, Sendable, Hashable {
    /// The flag byte.
    package var rawValue: UInt8
    /// Flags from their byte.
    package init(rawValue: UInt8) { self.rawValue = rawValue }

    /// The bits holding the message type.
    package static let typeMask: UInt8 = 0x07
    /// The frame's data is deflated (per frame; set on every frame of a compressed message).
    package static let compressed = BLIPFrameFlags(rawValue: 0x08)
    /// Sent ahead of normal messages.
    package static let urgent = BLIPFrameFlags(rawValue: 0x10)
    /// The sender wants no reply.
    package static let noReply = BLIPFrameFlags(rawValue: 0x20)
    /// More frames of this message follow.
    package static let moreComing = BLIPFrameFlags(rawValue: 0x40)

    // Type codes: MSG 0, RPY 1, ERR 2 (BLIPMessage.Kind), ACKMSG 4, ACKRPY 5; 3, 6, 7 unassigned.
    /// The type of an ACK of a request (ACKMSG).
    package static let ackRequestType: UInt8 = 4
    /// The type of an ACK of a reply (ACKRPY).
    package static let ackReplyType: UInt8 = 5

    /// The type bits.
    package var type: UInt8 { rawValue & Self.typeMask }

    /// The flags a message's frames carry (before `moreComing`).
    package init(_ message: BLIPMessage) {
        var flags = BLIPFrameFlags(rawValue: message.kind.rawValue)
        if message.compressed { flags.insert(.compressed) }
        if message.urgent { flags.insert(.urgent) }
        if message.noReply { flags.insert(.noReply) }
        self = flags
    }
}
