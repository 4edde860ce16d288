#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Parses JSON (or JSON5) text straight into a ``FleeceEncoder`` (or any ``JSONSink``), with no
/// intermediate object tree. Numbers are classified as LiteCore 2.8 does: a `.` or exponent makes
/// a double; else a non-negative integer is unsigned, a negative one signed; beyond 64 bits it
/// becomes a double.
struct JSONParser<Sink: JSONSink>: ~Copyable {
    let text: UnsafeRawBufferPointer
    let encoder: Sink
    let json5: Bool
    let maximumDepth: Int
    var position = 0
    /// A string with escapes, unescaped; what ``parseString(quote:)`` returns for one.
    var scratch = EncoderBuffer<UInt8>(capacity: 64)

    init(text: UnsafeRawBufferPointer, encoder: Sink, json5: Bool, maximumDepth: Int) {
        self.text = text
        self.encoder = encoder
        self.json5 = json5
        self.maximumDepth = maximumDepth
    }

    func error(_ message: String, at offset: Int? = nil) -> FleeceError {
        FleeceError(.jsonError, "JSON: \(message)", offset: offset ?? position)
    }

    @inline(__always) var atEnd: Bool { position >= text.count }
    @inline(__always) var current: UInt8 { text[position] }

    mutating func parseDocument() throws {
        try skipWhitespace()
        guard !atEnd else { throw error("the text is empty") }
        try parseValue(depth: 0)
        try skipWhitespace()
        guard atEnd else { throw error("unexpected text after the value") }
        if let failure = encoder.error { throw failure }
    }

    /// Skips whitespace (and JSON5 comments). Compact JSON has none between most tokens, so
    /// the check for that is inlined and the loop is not.
    @inline(__always)
    mutating func skipWhitespace() throws {
        if position < text.count {
            let byte = text[position]
            if byte > 0x20 && byte != UInt8(ascii: "/") { return }
        }
        try skipWhitespaceSlowly()
    }

    @inline(never)
    mutating func skipWhitespaceSlowly() throws {
        while position < text.count {
            switch text[position] {
            case 0x20, 0x0A, 0x0D, 0x09:
                position += 1
            case UInt8(ascii: "/") where json5:
                guard position + 1 < text.count else { throw error("unexpected '/'") }
                if text[position + 1] == UInt8(ascii: "/") {
                    position += 2
                    while position < text.count && text[position] != 0x0A { position += 1 }
                } else if text[position + 1] == UInt8(ascii: "*") {
                    let start = position
                    position += 2
                    while true {
                        guard position + 1 < text.count else { throw error("unterminated /* comment", at: start) }
                        if text[position] == UInt8(ascii: "*") && text[position + 1] == UInt8(ascii: "/") { break }
                        position += 1
                    }
                    position += 2
                } else {
                    throw error("unexpected '/'")
                }
            default:
                return
            }
        }
    }

    mutating func parseValue(depth: Int) throws {
        guard !atEnd else { throw error("unexpected end of text") }
        switch current {
        case UInt8(ascii: "{"):
            try parseObject(depth: depth + 1)
        case UInt8(ascii: "["):
            try parseArray(depth: depth + 1)
        case UInt8(ascii: "\""):
            // Parsed before the sink is loaded: loading it first, across the mutating call, costs a retain.
            let bytes = try parseString(quote: UInt8(ascii: "\""))
            encoder.writeStringBytes(bytes)
        case UInt8(ascii: "'") where json5:
            let bytes = try parseString(quote: UInt8(ascii: "'"))
            encoder.writeStringBytes(bytes)
        case UInt8(ascii: "t"):
            try expectLiteral("true"); encoder.writeBool(true)
        case UInt8(ascii: "f"):
            try expectLiteral("false"); encoder.writeBool(false)
        case UInt8(ascii: "n"):
            try expectLiteral("null"); encoder.writeNull()
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            try parseNumber()
        case UInt8(ascii: "+") where json5:
            try parseNumber()
        case UInt8(ascii: ".") where json5:
            try parseNumber()
        default:
            throw error("unexpected character '\(printable(current))'")
        }
    }

    func printable(_ byte: UInt8) -> String {
        byte >= 0x20 && byte < 0x7F ? String(UnicodeScalar(byte)) : "\\x" + String(byte, radix: 16)
    }

    mutating func expectLiteral(_ literal: StaticString) throws {
        let count = literal.utf8CodeUnitCount
        guard position + count <= text.count else { throw error("unexpected end of text") }
        let bytes = literal.utf8Start
        for index in 0..<count where text[position + index] != bytes[index] {
            throw error("invalid literal (expected \(literal))")
        }
        position += count
    }

    mutating func parseObject(depth: Int) throws {
        guard depth <= maximumDepth else { throw error("nesting is deeper than \(maximumDepth) levels") }
        position += 1
        encoder.beginDictionary()
        try skipWhitespace()
        if !atEnd && current == UInt8(ascii: "}") {
            position += 1
            encoder.endDictionary()
            return
        }
        while true {
            guard !atEnd else { throw error("unterminated object") }
            switch current {
            case UInt8(ascii: "\""):
                // Parsed before the sink is loaded: loading it first, across the mutating call, costs a retain.
                let bytes = try parseString(quote: UInt8(ascii: "\""))
                encoder.writeKeyBytes(bytes)
            case UInt8(ascii: "'") where json5:
                let bytes = try parseString(quote: UInt8(ascii: "'"))
                encoder.writeKeyBytes(bytes)
            default:
                guard json5, isIdentifierStart(current) else { throw error("expected a string key") }
                let start = position
                while !atEnd && (isIdentifierStart(current) || (current >= 0x30 && current <= 0x39)) { position += 1 }
                encoder.writeKeyBytes(UnsafeRawBufferPointer(rebasing: text[start..<position]))
            }
            try skipWhitespace()
            guard !atEnd, current == UInt8(ascii: ":") else { throw error("expected ':' after a key") }
            position += 1
            try skipWhitespace()
            try parseValue(depth: depth)
            try skipWhitespace()
            guard !atEnd else { throw error("unterminated object") }
            if current == UInt8(ascii: ",") {
                position += 1
                try skipWhitespace()
                if json5 && !atEnd && current == UInt8(ascii: "}") { position += 1; break }
            } else if current == UInt8(ascii: "}") {
                position += 1
                break
            } else {
                throw error("expected ',' or '}' in object")
            }
        }
        encoder.endDictionary()
    }

    func isIdentifierStart(_ byte: UInt8) -> Bool {
        (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x41 && byte <= 0x5A) || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "$")
    }

    mutating func parseArray(depth: Int) throws {
        guard depth <= maximumDepth else { throw error("nesting is deeper than \(maximumDepth) levels") }
        position += 1
        encoder.beginArray()
        try skipWhitespace()
        if !atEnd && current == UInt8(ascii: "]") {
            position += 1
            encoder.endArray()
            return
        }
        while true {
            try parseValue(depth: depth)
            try skipWhitespace()
            guard !atEnd else { throw error("unterminated array") }
            if current == UInt8(ascii: ",") {
                position += 1
                try skipWhitespace()
                if json5 && !atEnd && current == UInt8(ascii: "]") { position += 1; break }
            } else if current == UInt8(ascii: "]") {
                position += 1
                break
            } else {
                throw error("expected ',' or ']' in array")
            }
        }
        encoder.endArray()
    }

    // MARK: Strings

    /// The index of the first quote, backslash or control byte at or after `index` (or the end
    /// of the text); `sawHighByte` becomes true if a byte of 0x80 or more comes before it.
    @inline(__always)
    func scanToSpecialByte(from index: Int, quote: UInt8, sawHighByte: inout Bool) -> Int {
        var index = index
        // Eight bytes at a time while none is the quote, a backslash or a control byte (the
        // bulk of long strings). In the word that has one, the lowest flagged byte is exactly
        // the first such byte: a false flag can only sit above a true one, from a borrow.
        if let base = text.baseAddress {
            let ones: UInt64 = 0x0101_0101_0101_0101
            let highs: UInt64 = 0x8080_8080_8080_8080
            let quotes = ones &* UInt64(quote)
            let backslashes = ones &* UInt64(UInt8(ascii: "\\"))
            while index + 8 <= text.count {
                let word = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: index, as: UInt64.self))
                let quoteBytes = word ^ quotes
                let backslashBytes = word ^ backslashes
                let special = (((quoteBytes &- ones) & ~quoteBytes) | ((backslashBytes &- ones) & ~backslashBytes)
                    | ((word &- ones &* 0x20) & ~word)) & highs
                if special != 0 {
                    let bit = special.trailingZeroBitCount
                    // High bytes before the special one (bits below its byte).
                    if word & highs & ((1 << UInt64(bit)) &- 1) != 0 { sawHighByte = true }
                    return index + bit >> 3
                }
                if word & highs != 0 { sawHighByte = true }
                index += 8
            }
        }
        while index < text.count {
            let byte = text[index]
            if byte == quote || byte == UInt8(ascii: "\\") || byte < 0x20 { return index }
            if byte >= 0x80 { sawHighByte = true }
            index += 1
        }
        return index
    }

    /// Parses a quoted string and returns its unescaped UTF-8: a slice of the text when it has
    /// no escapes, else the parser's scratch (valid until the next string is parsed).
    ///
    /// The common case, an ASCII string without escapes, is answered inline; the rest goes to
    /// ``parseStringSlowly(quote:start:index:sawHighByte:)``, so that this path stays small
    /// (half a million strings per import of the travel set).
    @inline(__always)
    mutating func parseString(quote: UInt8) throws -> UnsafeRawBufferPointer {
        let start = position + 1
        var sawHighByte = false
        let index = scanToSpecialByte(from: start, quote: quote, sawHighByte: &sawHighByte)
        if !sawHighByte, index < text.count, text.load(fromByteOffset: index, as: UInt8.self) == quote {
            position = index + 1
            return UnsafeRawBufferPointer(rebasing: text[start..<index])
        }
        return try parseStringSlowly(quote: quote, start: start, index: index, sawHighByte: sawHighByte)
    }

    /// ``parseString(quote:)`` for a string with escapes or bytes of 0x80 and above, or none
    /// closing it; `index` is where the first scan stopped.
    @inline(never)
    mutating func parseStringSlowly(quote: UInt8, start: Int, index scanned: Int, sawHighByte saw: Bool) throws
        -> UnsafeRawBufferPointer {
        var sawHighByte = saw
        var index = scanned
        guard index < text.count else { throw error("unterminated string", at: position) }
        if text[index] == quote {
            let slice = UnsafeRawBufferPointer(rebasing: text[start..<index])
            if sawHighByte { try checkUTF8(slice, at: start) }
            position = index + 1
            return slice
        }
        // There are escapes. The runs between them are copied whole.
        scratch.removeAll()
        var runStart = start
        while true {
            guard index < text.count else { throw error("unterminated string", at: position) }
            let byte = text[index]
            if byte == quote { break }
            if byte < 0x20 { throw error("control character 0x\(String(byte, radix: 16)) inside a string", at: index) }
            scratch.append(contentsOf: UnsafeRawBufferPointer(rebasing: text[runStart..<index]))
            guard index + 1 < text.count else { throw error("unterminated string", at: position) }
            let escape = text[index + 1]
            index += 2
            switch escape {
            case UInt8(ascii: "'") where json5: scratch.append(escape)
            case UInt8(ascii: "u"):
                var scalar = try hex4(at: index)
                index += 4
                if JSONEscape.isHighSurrogate(scalar) {
                    guard index + 6 <= text.count, text[index] == UInt8(ascii: "\\"), text[index + 1] == UInt8(ascii: "u") else {
                        throw error("invalid codepoint (lone surrogate \\u\(String(scalar, radix: 16, uppercase: true)))", at: index - 6)
                    }
                    let low = try hex4(at: index + 2)
                    guard JSONEscape.isLowSurrogate(low) else {
                        throw error("invalid codepoint (surrogate \\u\(String(scalar, radix: 16, uppercase: true)) not followed by a low surrogate)", at: index - 6)
                    }
                    index += 6
                    scalar = JSONEscape.scalar(high: scalar, low: low)
                } else if JSONEscape.isLowSurrogate(scalar) {
                    throw error("invalid codepoint (low surrogate \\u\(String(scalar, radix: 16, uppercase: true)) without a high one)", at: index - 6)
                }
                appendUTF8(scalar)
            default:
                guard let byte = JSONEscape.byte(for: escape) else {
                    throw error("invalid escape '\\\(printable(escape))'", at: index - 2)
                }
                scratch.append(byte)
            }
            runStart = index
            index = scanToSpecialByte(from: index, quote: quote, sawHighByte: &sawHighByte)
        }
        scratch.append(contentsOf: UnsafeRawBufferPointer(rebasing: text[runStart..<index]))
        position = index + 1
        if sawHighByte { try checkUTF8(scratch.bytes, at: start) }
        return scratch.bytes
    }

    func hex4(at index: Int) throws -> UInt32 {
        guard index + 4 <= text.count else { throw error("\\u escape too short", at: index - 2) }
        guard let value = JSONEscape.hex4(text, at: index) else {
            throw error("\\u escape too short or not hexadecimal", at: index - 2)
        }
        return value
    }

    mutating func appendUTF8(_ scalar: UInt32) {
        switch scalar {
        case ..<0x80:
            scratch.append(UInt8(scalar))
        case ..<0x800:
            scratch.append(0xC0 | UInt8(scalar >> 6))
            scratch.append(0x80 | UInt8(scalar & 0x3F))
        case ..<0x10000:
            scratch.append(0xE0 | UInt8(scalar >> 12))
            scratch.append(0x80 | UInt8((scalar >> 6) & 0x3F))
            scratch.append(0x80 | UInt8(scalar & 0x3F))
        default:
            scratch.append(0xF0 | UInt8(scalar >> 18))
            scratch.append(0x80 | UInt8((scalar >> 12) & 0x3F))
            scratch.append(0x80 | UInt8((scalar >> 6) & 0x3F))
            scratch.append(0x80 | UInt8(scalar & 0x3F))
        }
    }

    func checkUTF8(_ bytes: UnsafeRawBufferPointer, at offset: Int) throws {
        var index = 0
        let count = bytes.count
        while index < count {
            let byte = bytes[index]
            if byte < 0x80 { index += 1; continue }
            let length: Int
            var minimum: UInt32
            var scalar: UInt32
            switch byte {
            case 0xC2...0xDF: length = 2; minimum = 0x80; scalar = UInt32(byte & 0x1F)
            case 0xE0...0xEF: length = 3; minimum = 0x800; scalar = UInt32(byte & 0x0F)
            case 0xF0...0xF4: length = 4; minimum = 0x10000; scalar = UInt32(byte & 0x07)
            default: throw error("invalid UTF-8 in a string", at: offset)
            }
            guard index + length <= count else { throw error("invalid UTF-8 in a string", at: offset) }
            for next in 1..<length {
                let continuation = bytes[index + next]
                guard continuation & 0xC0 == 0x80 else { throw error("invalid UTF-8 in a string", at: offset) }
                scalar = scalar << 6 | UInt32(continuation & 0x3F)
            }
            guard scalar >= minimum, scalar <= 0x10FFFF, !(scalar >= 0xD800 && scalar <= 0xDFFF) else {
                throw error("invalid UTF-8 in a string", at: offset)
            }
            minimum = 0
            index += length
        }
    }

    // MARK: Numbers

    mutating func parseNumber() throws {
        let start = position
        var negative = false
        if current == UInt8(ascii: "-") { negative = true; position += 1 } else if current == UInt8(ascii: "+") { position += 1 }
        let digitsStart = position
        var magnitude: UInt64 = 0
        var overflow = false
        while !atEnd, current >= 0x30, current <= 0x39 {
            let digit = UInt64(current - 0x30)
            let (times10, o1) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times10.addingReportingOverflow(digit)
            if o1 || o2 { overflow = true }
            magnitude = sum
            position += 1
        }
        let integerDigits = position - digitsStart
        if integerDigits > 1 && text[digitsStart] == 0x30 && !json5 { throw error("number has a leading zero", at: start) }
        var isFloat = false
        if !atEnd && current == UInt8(ascii: ".") {
            isFloat = true
            position += 1
            let fractionStart = position
            while !atEnd, current >= 0x30, current <= 0x39 { position += 1 }
            if position == fractionStart && !json5 { throw error("number has no digits after '.'", at: start) }
            if position == fractionStart && integerDigits == 0 { throw error("invalid number", at: start) }
        } else if integerDigits == 0 {
            throw error("invalid number", at: start)
        }
        if !atEnd && (current == UInt8(ascii: "e") || current == UInt8(ascii: "E")) {
            isFloat = true
            position += 1
            if !atEnd && (current == UInt8(ascii: "+") || current == UInt8(ascii: "-")) { position += 1 }
            let exponentStart = position
            while !atEnd, current >= 0x30, current <= 0x39 { position += 1 }
            if position == exponentStart { throw error("number has no exponent digits", at: start) }
        }
        if !isFloat && !overflow {
            if negative {
                if magnitude <= UInt64(Int64.max) {
                    encoder.writeInt(-Int64(magnitude))
                    return
                } else if magnitude == UInt64(Int64.max) + 1 {
                    encoder.writeInt(.min)
                    return
                }
            } else {
                encoder.writeUInt(magnitude)
                return
            }
        }
        let value = Self.parseDouble(UnsafeRawBufferPointer(rebasing: text[start..<position]))
        guard value.isFinite else { throw error("number is out of range", at: start) }
        encoder.writeDouble(value)
    }

    /// Correctly rounded text → double (the C library's strtod on a NUL-terminated copy).
    static func parseDouble(_ bytes: UnsafeRawBufferPointer) -> Double {
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: bytes.count + 1) { buffer in
            var count = 0
            for byte in bytes where byte != UInt8(ascii: "+") || count > 0 {
                buffer[count] = CChar(bitPattern: byte)
                count += 1
            }
            buffer[count] = 0
            guard let base = buffer.baseAddress else { return 0 }
            return strtod(base, nil)
        }
    }
}
