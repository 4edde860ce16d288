/// Unsigned LEB128 integers, as BLIP writes message numbers, flags, property lengths and ACK
/// byte counts: seven bits a byte, least significant first, high bit set on all but the last.
package enum BLIPVarint {
    /// The longest encoding of a `UInt64`.
    package static let maxLength = 10

    /// Appends the encoding of `value` to `bytes`.
    package static func append(_ value: UInt64, to bytes: inout [UInt8]) {
        var rest = value
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }

    /// The encoding of `value`.
    package static func encode(_ value: UInt64) -> [UInt8] {
        var bytes: [UInt8] = []
        append(value, to: &bytes)
        return bytes
    }

    /// Reads one varint starting at `index`, and moves `index` past it.
    ///
    /// - Throws: `BLIPError.protocolViolation` when the bytes end inside the varint, when it is
    ///   longer than ten bytes, or when its value does not fit in 64 bits; `what` names the
    ///   field in the message.
    package static func read<Bytes: Collection<UInt8>>(
        _ bytes: Bytes, at index: inout Bytes.Index, what: String = "varint"
    ) throws -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        var position = index
        for count in 1...maxLength {
            guard position < bytes.endIndex else {
                throw BLIPError.protocolViolation("\(what) is truncated")
            }
            let byte = bytes[position]
            position = bytes.index(after: position)
            // The tenth byte holds bit 63 only; anything more overflows 64 bits.
            if count == maxLength && byte > 1 {
                throw BLIPError.protocolViolation("\(what) overflows 64 bits")
            }
            value |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 {
                index = position
                return value
            }
            shift += 7
        }
        throw BLIPError.protocolViolation("\(what) is longer than \(maxLength) bytes")
    }
}
