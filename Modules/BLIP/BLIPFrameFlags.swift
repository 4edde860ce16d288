/// The flag byte after a frame's message number (BLIPProtocol.hh): the message type in the low
/// three bits, then compressed, urgent, no-reply and more-coming bits.
package struct BLIPFrameFlags: OptionSet, Sendable, Hashable {
    package var rawValue: UInt8
    package init(rawValue: UInt8) { self.rawValue = rawValue }

    package static let typeMask: UInt8 = 0x07
    package static let compressed = BLIPFrameFlags(rawValue: 0x08)
    package static let urgent = BLIPFrameFlags(rawValue: 0x10)
    package static let noReply = BLIPFrameFlags(rawValue: 0x20)
    package static let moreComing = BLIPFrameFlags(rawValue: 0x40)

    /// Type codes: MSG 0, RPY 1, ERR 2, ACKMSG 4, ACKRPY 5 (3, 6 and 7 are unassigned).
    package static let ackRequestType: UInt8 = 4
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
