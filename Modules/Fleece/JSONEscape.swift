import LiteSupport

/// What a backslash escape in a JSON string stands for: decoded the same way by Fleece's
/// parser and by the 1.x upgrader's reader of attachment metadata, so they cannot disagree.
package enum JSONEscape {
    /// The byte a one-character escape (`\"`, `\\`, `\/`, `\b`, `\f`, `\n`, `\r`, `\t`) stands
    /// for; nil for any other character (`u` included, whose four digits follow it).
    @inline(__always)
    package static func byte(for escape: UInt8) -> UInt8? {
        switch escape {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): escape
        case UInt8(ascii: "b"): 0x08
        case UInt8(ascii: "f"): 0x0C
        case UInt8(ascii: "n"): 0x0A
        case UInt8(ascii: "r"): 0x0D
        case UInt8(ascii: "t"): 0x09
        default: nil
        }
    }

    /// The value of the four hex digits of a `\u` escape at `index` of `bytes`; nil when fewer
    /// than four bytes are left or one is not a hex digit.
    package static func hex4<Bytes: RandomAccessCollection<UInt8>>(_ bytes: Bytes, at index: Int) -> UInt32?
    where Bytes.Index == Int {
        guard index >= bytes.startIndex, index <= bytes.endIndex - 4 else { return nil }
        var value: UInt32 = 0
        for byte in bytes[index..<(index + 4)] {
            guard let digit = HexText.digitValue(byte) else { return nil }
            value = value << 4 | UInt32(digit)
        }
        return value
    }

    /// Whether `unit` is the first half of a UTF-16 surrogate pair.
    package static func isHighSurrogate(_ unit: UInt32) -> Bool { (0xD800...0xDBFF).contains(unit) }

    /// Whether `unit` is the second half of a UTF-16 surrogate pair.
    package static func isLowSurrogate(_ unit: UInt32) -> Bool { (0xDC00...0xDFFF).contains(unit) }

    /// The scalar value a UTF-16 surrogate pair stands for.
    package static func scalar(high: UInt32, low: UInt32) -> UInt32 {
        0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)
    }
}
