/// One whole BLIP message (request, reply or error reply), as the connection hands it to its
/// user or takes it from them. Frames, compression and checksums are below this level.
///
/// Wire form of a message's payload: `varint(propertiesLength)` + properties + body.
package struct BLIPMessage: Sendable, Equatable {
    /// What the message is: the low three bits of the frame flags.
    package enum Kind: UInt8, Sendable {
        case request = 0
        case reply = 1
        case error = 2
    }

    package var kind: Kind
    /// The request number: requests are numbered from 1 per direction; replies carry their
    /// request's number. Assigned by the connection when a request is sent (0 before).
    package var number: UInt64
    /// Sent ahead of normal messages (flag 0x10).
    package var urgent: Bool
    /// Body sent deflated (flag 0x08); a hint on outgoing messages, a fact on incoming ones.
    package var compressed: Bool
    /// The sender wants no reply (flag 0x20).
    package var noReply: Bool
    /// Properties in their wire order (keys are unique).
    package var properties: BLIPProperties
    package var body: [UInt8]

    package init(kind: Kind = .request, number: UInt64 = 0, urgent: Bool = false, compressed: Bool = false,
                 noReply: Bool = false, properties: BLIPProperties = BLIPProperties(), body: [UInt8] = []) {
        self.kind = kind
        self.number = number
        self.urgent = urgent
        self.compressed = compressed
        self.noReply = noReply
        self.properties = properties
        self.body = body
    }

    /// The `Profile` property: the request type (`getCheckpoint`, `rev`, …).
    package var profile: String? { properties["Profile"] }
}
