/// An error from the Fleece module: malformed data, an encoder misuse, bad JSON, a bad key
/// path or delta. The message names the thing and the problem, for a person.
package struct FleeceError: Error, Sendable, CustomStringConvertible, Equatable {
    /// What kind of problem this is.
    package enum Kind: String, Sendable, Equatable {
        /// Fleece bytes that fail validation (bad pointer, truncated value, bad length…).
        case invalidData
        /// The encoder was used out of order (a value without a key, an unclosed collection…).
        case encodeError
        /// A value that Fleece cannot represent (NaN).
        case unsupportedValue
        /// JSON or JSON5 text that cannot be parsed.
        case jsonError
        /// A key path that cannot be parsed.
        case pathSyntax
        /// A JSON delta that does not apply to the value it is applied to.
        case invalidDelta
    }

    /// What kind of problem this is.
    package let kind: Kind
    /// What happened, for a person.
    package let message: String
    /// Byte offset in the input where the problem was found, when there is one.
    package let offset: Int?

    /// Makes an error of the given kind.
    package init(_ kind: Kind, _ message: String, offset: Int? = nil) {
        self.kind = kind
        self.message = message
        self.offset = offset
    }

    /// The message, with the offset when known.
    package var description: String {
        if let offset { return "\(message) (at byte \(offset))" }
        return message
    }
}
