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
        func hex4(_ at: Int) -> UInt32? {
            guard at + 4 <= end else { return nil }
            var value: UInt32 = 0
            for byte in quoted[at..<at + 4] {
                let digit: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
                default: return nil
                }
                value = value << 4 | UInt32(digit)
            }
            return value
        }
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
            switch escaped {
            case UInt8(ascii: "b"): output.append(0x08)
            case UInt8(ascii: "f"): output.append(0x0C)
            case UInt8(ascii: "n"): output.append(0x0A)
            case UInt8(ascii: "r"): output.append(0x0D)
            case UInt8(ascii: "t"): output.append(0x09)
            case UInt8(ascii: "u"):
                guard var scalar = hex4(index) else { return nil }
                index += 4
                if (0xD800...0xDBFF).contains(scalar), index + 6 <= end,
                   quoted[index] == UInt8(ascii: "\\"), quoted[index + 1] == UInt8(ascii: "u"),
                   let low = hex4(index + 2), (0xDC00...0xDFFF).contains(low) {
                    scalar = 0x10000 + (scalar - 0xD800) << 10 + (low - 0xDC00)
                    index += 6
                }
                output.append(contentsOf: Array(String(Unicode.Scalar(scalar).map(Character.init) ?? "\u{FFFD}").utf8))
            default: output.append(escaped)
            }
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
                index += 1
                var members: [String: JSONValue] = [:]
                skipWhitespace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "}") { index += 1; return .object(members) }
                while true {
                    skipWhitespace()
                    guard let key = stringValue() else { return nil }
                    skipWhitespace()
                    guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return nil }
                    index += 1
                    guard let member = value() else { return nil }
                    members[key] = member
                    skipWhitespace()
                    guard index < bytes.count else { return nil }
                    index += 1
                    if bytes[index - 1] == UInt8(ascii: "}") { return .object(members) }
                    guard bytes[index - 1] == UInt8(ascii: ",") else { return nil }
                }
            case UInt8(ascii: "["):
                index += 1
                var elements: [JSONValue] = []
                skipWhitespace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "]") { index += 1; return .array(elements) }
                while true {
                    guard let element = value() else { return nil }
                    elements.append(element)
                    skipWhitespace()
                    guard index < bytes.count else { return nil }
                    index += 1
                    if bytes[index - 1] == UInt8(ascii: "]") { return .array(elements) }
                    guard bytes[index - 1] == UInt8(ascii: ",") else { return nil }
                }
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
