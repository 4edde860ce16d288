/// An order-preserving byte encoding of query values for index keys: comparing two encodings
/// byte by byte (memcmp) orders them as N1QL collation orders the values (null < false < true <
/// numbers < strings < arrays < objects; MISSING is never indexed). Several values concatenate
/// into a composite key that orders by the first, then the next.
///
/// Layout: a type byte (1 null, 2 false, 3 true, 4 number, 5 string, 6 array, 7 object), then
/// - numbers: the double's bits made sortable (sign bit flipped for positives, all bits
///   flipped for negatives), 8 bytes big-endian;
/// - strings: UTF-8 with 0x00 written as 0x00 0xFF, ended by 0x00 0x00;
/// - arrays: each element encoded, ended by 0x00;
/// - objects: entry count (8 bytes big-endian), then sorted keys and values, ended by 0x00.
package enum IndexKey {
    package static func append(_ value: QueryValue, to out: inout [UInt8]) {
        switch value {
        case .missing, .null: out.append(1)
        case .bool(let flag): out.append(flag ? 3 : 2)
        case .int, .double:
            appendNumber(value.number ?? 0, to: &out)
        case .string(let text):
            out.append(5)
            appendString(text.utf8, to: &out)
        case .array(let items):
            out.append(6)
            for item in items { append(item, to: &out) }
            out.append(0)
        case .dictionary(let entries):
            out.append(7)
            let count = UInt64(entries.count)
            for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8((count >> UInt64(shift)) & 0xFF)) }
            for key in entries.keys.sorted(by: { $0.precedesInByteOrder($1) }) {
                appendString(key.utf8, to: &out)
                append(entries[key] ?? .null, to: &out)
            }
            out.append(0)
        }
    }

    /// Appends a number's key (tag 4, then its sortable bits).
    static func appendNumber(_ number: Double, to out: inout [UInt8]) {
        out.append(4)
        let bits = (number == 0 ? 0.0 : number).bitPattern   // -0 and 0 are one key
        let sortable = bits & (1 << 63) != 0 ? ~bits : bits | (1 << 63)
        for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8((sortable >> UInt64(shift)) & 0xFF)) }
    }

    /// Appends a string's UTF-8 (after its tag), each 0 escaped, and the terminator.
    static func appendString<Bytes: Sequence<UInt8>>(_ bytes: Bytes, to out: inout [UInt8]) {
        for byte in bytes {
            out.append(byte)
            if byte == 0 { out.append(0xFF) }
        }
        out.append(0)
        out.append(0)
    }

    /// The start every key of a string beginning with `prefix` shares (no terminator).
    static func stringPrefix(_ prefix: String) -> [UInt8] {
        var out: [UInt8] = [5]
        appendString(prefix.utf8, to: &out)
        out.removeLast(2)
        return out
    }

    /// The key of `values` (a composite key for several).
    package static func encode(_ values: [QueryValue]) -> [UInt8] {
        var out: [UInt8] = []
        for value in values { append(value, to: &out) }
        return out
    }
}
