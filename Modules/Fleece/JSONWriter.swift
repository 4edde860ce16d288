/// Writes Fleece values as JSON text the way LiteCore does: no whitespace, dictionary entries in
/// stored order (or sorted by key when canonical), `\r \n \t \" \\` escapes, other control bytes
/// and DEL as `\u00xx`, non-ASCII passed through, data as base64, floats in shortest
/// round-trip form (a 32-bit float with float digits).
struct JSONWriter {
    var out: [UInt8] = []
    let canonical: Bool

    init(canonical: Bool, capacity: Int = 256) {
        self.canonical = canonical
        out.reserveCapacity(capacity)
    }

    mutating func write(_ value: FleeceValue) {
        switch value.tag {
        case 0, 1:
            if value.isUnsigned { writeUnsigned(value.uint64) } else { writeSigned(value.int64) }
        case 2:
            if let float = value.float { writeASCII(float.description) } else { writeASCII(value.double.description) }
        case 3:
            switch value.tagByte & 0x0F {
            case 0x04: writeASCII("false")
            case 0x08: writeASCII("true")
            case 0x0C: writeASCII("undefined")
            default: writeASCII("null")
            }
        case 4:
            value.withPayload { writeString($0) }
        case 5:
            out.append(UInt8(ascii: "\""))
            value.withPayload { Base64.encode($0, into: &out) }
            out.append(UInt8(ascii: "\""))
        case 6:
            out.append(UInt8(ascii: "["))
            var first = true
            for item in FleeceArray(value) {
                if !first { out.append(UInt8(ascii: ",")) }
                first = false
                write(item)
            }
            out.append(UInt8(ascii: "]"))
        default:
            let dict = FleeceDict(value)
            out.append(UInt8(ascii: "{"))
            if canonical {
                let entries = (0..<dict.count).map { dict.entry($0) }
                    .sorted { Array($0.key.utf8).lexicographicallyPrecedes(Array($1.key.utf8)) }
                for (index, entry) in entries.enumerated() {
                    if index > 0 { out.append(UInt8(ascii: ",")) }
                    var key = entry.key
                    key.withUTF8 { writeString(UnsafeRawBufferPointer($0)) }
                    out.append(UInt8(ascii: ":"))
                    write(entry.value)
                }
            } else {
                for index in 0..<dict.count {
                    if index > 0 { out.append(UInt8(ascii: ",")) }
                    let key = dict.keyValue(index)
                    if key.tag == 4 {
                        key.withPayload { writeString($0) }
                    } else {
                        var string = dict.keyString(index)
                        string.withUTF8 { writeString(UnsafeRawBufferPointer($0)) }
                    }
                    out.append(UInt8(ascii: ":"))
                    write(FleeceValue(document: value.document, offset: dict.valueOffset(index)))
                }
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    mutating func writeASCII(_ text: String) {
        out.append(contentsOf: text.utf8)
    }

    mutating func writeSigned(_ value: Int64) {
        if value < 0 {
            out.append(UInt8(ascii: "-"))
            writeUnsigned(value == .min ? UInt64(Int64.max) + 1 : UInt64(-value))
        } else {
            writeUnsigned(UInt64(value))
        }
    }

    mutating func writeUnsigned(_ value: UInt64) {
        if value < 10 { out.append(0x30 + UInt8(value)); return }
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)   // room for 20 digits, no allocation
        var count = 0
        var remaining = value
        withUnsafeMutableBytes(of: &digits) { buffer in
            while remaining > 0 {
                buffer[count] = 0x30 + UInt8(remaining % 10)
                remaining /= 10
                count += 1
            }
            for index in stride(from: count - 1, through: 0, by: -1) { out.append(buffer[index]) }
        }
    }

    static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    mutating func writeString(_ bytes: UnsafeRawBufferPointer) {
        out.append(UInt8(ascii: "\""))
        var runStart = 0
        var index = 0
        // Eight bytes at a time while none needs an escape (control bytes, `"`, `\\`, DEL).
        if let base = bytes.baseAddress {
            let ones: UInt64 = 0x0101_0101_0101_0101
            let highs: UInt64 = 0x8080_8080_8080_8080
            while index + 8 <= bytes.count {
                let word = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: index, as: UInt64.self))
                let quotes = word ^ (ones &* 0x22)
                let backslashes = word ^ (ones &* 0x5C)
                let deletes = word ^ (ones &* 0x7F)
                let special = ((quotes &- ones) & ~quotes) | ((backslashes &- ones) & ~backslashes)
                    | ((deletes &- ones) & ~deletes) | ((word &- ones &* 0x20) & ~word)
                if special & highs != 0 { break }
                index += 8
            }
        }
        while index < bytes.count {
            defer { index += 1 }
            let byte = bytes[index]
            guard byte < 0x20 || byte == 0x22 || byte == 0x5C || byte == 0x7F else { continue }
            if index > runStart { out.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[runStart..<index])) }
            runStart = index + 1
            out.append(UInt8(ascii: "\\"))
            switch byte {
            case 0x22: out.append(0x22)
            case 0x5C: out.append(0x5C)
            case 0x0D: out.append(UInt8(ascii: "r"))
            case 0x0A: out.append(UInt8(ascii: "n"))
            case 0x09: out.append(UInt8(ascii: "t"))
            default:
                out.append(contentsOf: [UInt8(ascii: "u"), 0x30, 0x30, Self.hexDigits[Int(byte >> 4)], Self.hexDigits[Int(byte & 0x0F)]])
            }
        }
        if bytes.count > runStart { out.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[runStart..<bytes.count])) }
        out.append(UInt8(ascii: "\""))
    }
}

extension FleeceValue {
    /// The value as JSON text: entries in stored order, or sorted by key when `canonical`.
    package func json(canonical: Bool = false) -> String {
        String(decoding: jsonBytes(canonical: canonical), as: UTF8.self)
    }

    /// The value as UTF-8 JSON bytes.
    package func jsonBytes(canonical: Bool = false) -> [UInt8] {
        var writer = JSONWriter(canonical: canonical, capacity: document.byteCount * 2)
        writer.write(self)
        return writer.out
    }
}
