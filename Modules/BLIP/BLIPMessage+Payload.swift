/// A message's payload: `varint(propertiesLength)` + properties + body, the bytes its frames
/// carry (before compression).
extension BLIPMessage {
    /// The encoded payload.
    ///
    /// - Throws: `BLIPError.invalidMessage` when the properties cannot be encoded.
    package func encodedPayload() throws -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(body.count + 64)
        try properties.encode(into: &bytes)
        bytes += body
        return bytes
    }

    /// Decodes a complete payload into a message with the given header fields.
    ///
    /// - Throws: `BLIPError.protocolViolation` when the properties block is malformed.
    package init(kind: Kind, number: UInt64, flags: BLIPFrameFlags, payload: [UInt8]) throws {
        let (properties, length) = try BLIPProperties.decode(from: payload)
        self.init(kind: kind, number: number, urgent: flags.contains(.urgent),
                  compressed: flags.contains(.compressed), noReply: flags.contains(.noReply),
                  properties: properties, body: Array(payload[length...]))
    }
}
