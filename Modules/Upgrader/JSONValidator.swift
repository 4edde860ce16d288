/// Checks that bytes are one JSON object exactly as RFC 8259 defines JSON text, without
/// building any value.
///
/// Foundation's parsers are too lenient to validate with: `JSONSerialization` accepts trailing
/// commas, and `JSONDecoder` does not look inside values it is not asked for (so `"\q"`, `01` or
/// invalid UTF-8 there pass). Strings must be well-formed UTF-8 (Unicode Table 3-7) with no raw
/// control characters; numbers follow the JSON grammar (range is the converter's business, as
/// is a lone surrogate in a `\u` escape, which the grammar allows).
///
/// While checking, it notes where the value of a top-level key lies, so one member can then be
/// read (``JSONValue``) without parsing the rest a second time.
struct JSONValidator {
    /// Why the bytes are not a JSON object, and where.
    struct Failure: Error, Equatable, CustomStringConvertible {
        /// The byte offset of the problem.
        let offset: Int
        /// What is wrong there.
        let problem: String

        var description: String { "\(problem) at byte \(offset)" }
    }

    /// Containers nested deeper than this are refused rather than risking the stack.
    static let maximumDepth = 512

    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0
    private let memberKey: [UInt8]?
    private var memberRange: Range<Int>?

    private init(_ bytes: UnsafeBufferPointer<UInt8>, memberKey: [UInt8]?) {
        self.bytes = bytes
        self.memberKey = memberKey
    }

    /// `nil` when `json` is a single JSON object (surrounded by optional whitespace), otherwise
    /// the first problem found.
    static func validateObject(_ json: [UInt8]) -> Failure? {
        if case .failure(let failure) = validateObject(json, locatingMember: nil) { return failure }
        return nil
    }

    /// Validates `json` as a JSON object and returns the byte range of the value of its
    /// top-level member `key` (`nil` when absent; the last one when repeated).
    static func validateObject(_ json: [UInt8], locatingMember key: String?) -> Result<Range<Int>?, Failure> {
        json.withUnsafeBufferPointer { buffer in
            var validator = JSONValidator(buffer, memberKey: key.map { Array($0.utf8) })
            do throws(Failure) {
                validator.skipWhitespace()
                guard validator.peek() == UInt8(ascii: "{") else {
                    throw validator.failure("the top level is not an object")
                }
                try validator.value(depth: 0)
                validator.skipWhitespace()
                guard validator.index == buffer.count else { throw validator.failure("unexpected bytes after the object") }
                return .success(validator.memberRange)
            } catch {
                return .failure(error)
            }
        }
    }

    private func peek() -> UInt8? { index < bytes.count ? bytes[index] : nil }

    private func failure(_ problem: String) -> Failure { Failure(offset: index, problem: problem) }

    private mutating func skipWhitespace() {
        while let byte = peek(), byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { index += 1 }
    }

    private mutating func expect(_ byte: UInt8, _ what: String) throws(Failure) {
        guard peek() == byte else { throw failure("expected \(what)") }
        index += 1
    }

    private mutating func value(depth: Int) throws(Failure) {
        guard let byte = peek() else { throw failure("unexpected end, expected a value") }
        switch byte {
        case UInt8(ascii: "{"): try object(depth: depth + 1)
        case UInt8(ascii: "["): try array(depth: depth + 1)
        case UInt8(ascii: "\""): try string()
        case UInt8(ascii: "t"): try literal("true")
        case UInt8(ascii: "f"): try literal("false")
        case UInt8(ascii: "n"): try literal("null")
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try number()
        default: throw failure("unexpected character, expected a value")
        }
    }

    private mutating func object(depth: Int) throws(Failure) {
        var closed = try entersContainer(depth: depth, closedBy: UInt8(ascii: "}"))
        while !closed {
            skipWhitespace()
            guard peek() == UInt8(ascii: "\"") else { throw failure("expected a string key") }
            let keyStart = index
            try string()
            let isMember = depth == 1 && isMemberKey(keyStart..<index)
            skipWhitespace()
            try expect(UInt8(ascii: ":"), "':' after a key")
            skipWhitespace()
            let valueStart = index
            try value(depth: depth)
            if isMember { memberRange = valueStart..<index }
            closed = try endsContainer(closedBy: UInt8(ascii: "}"), "',' or '}' in an object")
        }
    }

    /// Whether the quoted string at `range` (a validated key) is ``memberKey``, escapes decoded.
    private func isMemberKey(_ range: Range<Int>) -> Bool {
        guard let memberKey else { return false }
        let raw = bytes[range.lowerBound + 1..<range.upperBound - 1]
        if !raw.contains(UInt8(ascii: "\\")) { return raw.elementsEqual(memberKey) }
        return JSONValue.decodeString(UnsafeBufferPointer(rebasing: bytes[range])) == String(decoding: memberKey, as: UTF8.self)
    }

    private mutating func array(depth: Int) throws(Failure) {
        var closed = try entersContainer(depth: depth, closedBy: UInt8(ascii: "]"))
        while !closed {
            skipWhitespace()
            try value(depth: depth)
            closed = try endsContainer(closedBy: UInt8(ascii: "]"), "',' or ']' in an array")
        }
    }

    /// At `{` or `[`: checks the depth, skips the bracket, and returns whether `close` follows
    /// at once (skipped too: the container is empty).
    private mutating func entersContainer(depth: Int, closedBy close: UInt8) throws(Failure) -> Bool {
        guard depth <= Self.maximumDepth else { throw failure("nested more than \(Self.maximumDepth) deep") }
        index += 1
        skipWhitespace()
        guard peek() == close else { return false }
        index += 1
        return true
    }

    /// After a member or element: skips the `,` (false: more follow) or `close` (true) that comes
    /// next; anything else fails as not being `expected`.
    private mutating func endsContainer(closedBy close: UInt8, _ expected: String) throws(Failure) -> Bool {
        skipWhitespace()
        if peek() == UInt8(ascii: ",") {
            index += 1
            return false
        }
        try expect(close, expected)
        return true
    }

    private mutating func literal(_ word: StaticString) throws(Failure) {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count,
              UnsafeBufferPointer(start: word.utf8Start, count: count).elementsEqual(bytes[index..<index + count])
        else { throw failure("invalid literal, expected \(word)") }
        index += count
    }

    private mutating func digits() -> Int {
        let start = index
        while let byte = peek(), byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") { index += 1 }
        return index - start
    }

    private mutating func number() throws(Failure) {
        if peek() == UInt8(ascii: "-") { index += 1 }
        if peek() == UInt8(ascii: "0") {
            index += 1
        } else {
            guard digits() > 0 else { throw failure("invalid number: no digits") }
        }
        if peek() == UInt8(ascii: ".") {
            index += 1
            guard digits() > 0 else { throw failure("invalid number: no digits after '.'") }
        }
        if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
            index += 1
            if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { index += 1 }
            guard digits() > 0 else { throw failure("invalid number: no exponent digits") }
        }
    }

    private mutating func string() throws(Failure) {
        index += 1
        while let byte = peek() {
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return
            case UInt8(ascii: "\\"):
                index += 1
                try escape()
            case 0x00..<0x20:
                throw failure("raw control character in a string")
            case 0x20..<0x80:
                index += 1
            default:
                try utf8Sequence()
            }
        }
        throw failure("unterminated string")
    }

    private mutating func escape() throws(Failure) {
        guard let byte = peek() else { throw failure("unterminated escape") }
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
             UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            index += 1
        case UInt8(ascii: "u"):
            index += 1
            for _ in 0..<4 {
                guard let hex = peek(), hex.isHexDigit else { throw failure("invalid \\u escape") }
                index += 1
            }
        default:
            throw failure("invalid escape")
        }
    }

    /// One multi-byte UTF-8 sequence: no overlong forms, no surrogates, nothing above U+10FFFF.
    private mutating func utf8Sequence() throws(Failure) {
        let lead = bytes[index]
        let (length, secondRange): (Int, ClosedRange<UInt8>) = switch lead {
        case 0xC2...0xDF: (2, 0x80...0xBF)
        case 0xE0: (3, 0xA0...0xBF)
        case 0xE1...0xEC, 0xEE...0xEF: (3, 0x80...0xBF)
        case 0xED: (3, 0x80...0x9F)
        case 0xF0: (4, 0x90...0xBF)
        case 0xF1...0xF3: (4, 0x80...0xBF)
        case 0xF4: (4, 0x80...0x8F)
        default: (0, 0x80...0xBF)
        }
        guard length > 0, index + length <= bytes.count, secondRange.contains(bytes[index + 1]) else {
            throw failure("invalid UTF-8")
        }
        for offset in 2..<max(2, length) where !(0x80...0xBF).contains(bytes[index + offset]) {
            throw failure("invalid UTF-8")
        }
        index += length
    }
}

private extension UInt8 {
    var isHexDigit: Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self)
            || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(self)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(self)
    }
}
