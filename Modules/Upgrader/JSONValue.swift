import Fleece

/// A JSON value read from bytes ``JSONValidator`` has accepted.
///
/// Used for one small member of a body (`_attachments`), so the whole body is never turned into
/// values. Input that is not valid JSON reads as `nil`, never as a crash.
enum JSONValue: Equatable {
    case object([String: JSONValue])
    case array([JSONValue])
    case string(String)
    /// A number, kept as its text so integers of any size read exactly.
    case number(String)
    case bool(Bool)
    case null

    /// The member `key` of an object.
    subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    /// The string, when this is one.
    var string: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    /// The number as an `Int`, when it is integral and fits (`7` and `7.0` both give 7).
    var integer: Int? {
        guard case .number(let text) = self else { return nil }
        return Int(text) ?? Double(text).flatMap { Int(exactly: $0) }
    }

    /// Parses `bytes[range]`, which must hold exactly one JSON value.
    static func parse(_ bytes: [UInt8], range: Range<Int>) -> JSONValue? {
        bytes.withUnsafeBufferPointer { buffer in
            guard range.lowerBound >= 0, range.upperBound <= buffer.count else { return nil }
            var reader = Reader(bytes: UnsafeBufferPointer(rebasing: buffer[range]))
            return reader.value()
        }
    }

    /// Decodes a quoted JSON string (quotes included) into a Swift string; lone surrogates in
    /// `\u` escapes become U+FFFD.
    static func decodeString(_ quoted: UnsafeBufferPointer<UInt8>) -> String? {
        guard quoted.count >= 2, quoted.first == UInt8(ascii: "\""), quoted.last == UInt8(ascii: "\"") else {
            return nil
        }
        var output: [UInt8] = []
        output.reserveCapacity(quoted.count)
        var index = 1
        let end = quoted.count - 1
        // The closing quote is not part of the text an escape's digits can be read from.
        let digits = UnsafeBufferPointer(rebasing: quoted[..<end])
        while index < end {
            let byte = quoted[index]
            guard byte == UInt8(ascii: "\\") else {
                output.append(byte)
                index += 1
                continue
            }
            guard index + 1 < end else { return nil }
            let escaped = quoted[index + 1]
            index += 2
            guard escaped == UInt8(ascii: "u") else {
                output.append(JSONEscape.byte(for: escaped) ?? escaped)
                continue
            }
            guard var scalar = JSONEscape.hex4(digits, at: index) else { return nil }
            index += 4
            if JSONEscape.isHighSurrogate(scalar), index + 6 <= end,
               quoted[index] == UInt8(ascii: "\\"), quoted[index + 1] == UInt8(ascii: "u"),
               let low = JSONEscape.hex4(digits, at: index + 2), JSONEscape.isLowSurrogate(low) {
                scalar = JSONEscape.scalar(high: scalar, low: low)
                index += 6
            }
            output.append(contentsOf: Array(String(Unicode.Scalar(scalar).map(Character.init) ?? "\u{FFFD}").utf8))
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Recursive descent over validated input; nesting is bounded by the validator's limit.
    private struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0

        private static func isWhitespace(_ byte: UInt8) -> Bool {
            byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
        }

        private mutating func skipWhitespace() {
            while index < bytes.count, Self.isWhitespace(bytes[index]) { index += 1 }
        }

        mutating func value() -> JSONValue? {
            skipWhitespace()
            guard index < bytes.count else { return nil }
            switch bytes[index] {
            case UInt8(ascii: "{"):
                var members: [String: JSONValue] = [:]
                var closed = entersContainer(closedBy: UInt8(ascii: "}"))
                while !closed {
                    skipWhitespace()
                    guard let key = stringValue() else { return nil }
                    skipWhitespace()
                    guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return nil }
                    index += 1
                    guard let member = value(), let isLast = endsContainer(closedBy: UInt8(ascii: "}")) else { return nil }
                    members[key] = member
                    closed = isLast
                }
                return .object(members)
            case UInt8(ascii: "["):
                var elements: [JSONValue] = []
                var closed = entersContainer(closedBy: UInt8(ascii: "]"))
                while !closed {
                    guard let element = value(), let isLast = endsContainer(closedBy: UInt8(ascii: "]")) else { return nil }
                    elements.append(element)
                    closed = isLast
                }
                return .array(elements)
            case UInt8(ascii: "\""):
                return stringValue().map(JSONValue.string)
            case UInt8(ascii: "t"): index += 4; return .bool(true)
            case UInt8(ascii: "f"): index += 5; return .bool(false)
            case UInt8(ascii: "n"): index += 4; return .null
            default:
                let start = index
                while index < bytes.count, !Self.isWhitespace(bytes[index]), bytes[index] != UInt8(ascii: ","),
                      bytes[index] != UInt8(ascii: "]"), bytes[index] != UInt8(ascii: "}") {
                    index += 1
                }
                guard index > start else { return nil }
                return .number(String(decoding: bytes[start..<index], as: UTF8.self))
            }
        }

        /// At `{` or `[`: skips it, and returns whether `close` follows at once (skipped too).
        private mutating func entersContainer(closedBy close: UInt8) -> Bool {
            index += 1
            skipWhitespace()
            guard index < bytes.count, bytes[index] == close else { return false }
            index += 1
            return true
        }

        /// After a member or element: skips the `,` (false: more follow) or `close` (true) that
        /// comes next; nil for anything else.
        private mutating func endsContainer(closedBy close: UInt8) -> Bool? {
            skipWhitespace()
            guard index < bytes.count else { return nil }
            index += 1
            switch bytes[index - 1] {
            case close: return true
            case UInt8(ascii: ","): return false
            default: return nil
            }
        }

        private mutating func stringValue() -> String? {
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return nil }
            let start = index
            index += 1
            while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
                index += bytes[index] == UInt8(ascii: "\\") ? 2 : 1
            }
            guard index < bytes.count else { return nil }
            index += 1
            return JSONValue.decodeString(UnsafeBufferPointer(rebasing: bytes[start..<index]))
        }
    }
}
