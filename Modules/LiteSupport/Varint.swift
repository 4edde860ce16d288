/// Unsigned LEB128 integers ("varints"), as revision IDs, revision trees and BLIP frames store
/// them: seven bits a byte, least significant first, the high bit set on every byte but the
/// last. Inlined, so that the revision-tree codec and BLIP framing, which decode them in inner
/// loops, get it specialised for their byte type. (Full-text postings keep their own coding:
/// through this one, search measured slower; decision General-11.)
///
/// ```swift
/// var bytes: [UInt8] = []
/// Varint.append(300, to: &bytes)                              // [0xAC, 0x02]
/// var index = 0
/// let value = try Varint.read(bytes, at: &index, end: bytes.count)   // 300, index 2
/// ```
package enum Varint {
    /// The longest encoding of a `UInt64`.
    package static let maxLength = 10

    /// Why bytes do not hold a varint; each format says it in its own error.
    package enum Failure: Error, Sendable {
        /// The bytes end inside it.
        case truncated
        /// It does not fit in 64 bits: its tenth byte holds more than bit 63, or it goes on.
        case overflow
    }

    /// How many bytes the encoding of `value` takes.
    @inlinable @inline(__always)
    package static func size(of value: UInt64) -> Int {
        var rest = value, size = 1
        while rest >= 0x80 {
            rest >>= 7
            size += 1
        }
        return size
    }

    /// Appends the encoding of `value` to `bytes`.
    @inlinable @inline(__always)
    package static func append(_ value: UInt64, to bytes: inout [UInt8]) {
        var rest = value
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }

    /// The encoding of `value`.
    @inlinable @inline(__always)
    package static func encode(_ value: UInt64) -> [UInt8] {
        var bytes: [UInt8] = []
        append(value, to: &bytes)
        return bytes
    }

    /// Writes the encoding of `value` into `out` at `offset` and moves `offset` past it; the
    /// caller made room for it (``size(of:)``).
    @inlinable @inline(__always)
    package static func write(_ value: UInt64, to out: UnsafeMutableBufferPointer<UInt8>, at offset: inout Int) {
        var rest = value
        while rest >= 0x80 {
            out[offset] = UInt8(truncatingIfNeeded: rest) | 0x80
            offset += 1
            rest >>= 7
        }
        out[offset] = UInt8(rest)
        offset += 1
    }

    /// Reads the varint starting at `index` in `bytes`, which end for it at `end`, and moves
    /// `index` past it (on failure `index` stays where it was).
    @inlinable @inline(__always)
    package static func read<Bytes: Collection<UInt8>>(
        _ bytes: Bytes, at index: inout Bytes.Index, end: Bytes.Index
    ) throws(Failure) -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        var position = index
        while position < end {
            let byte = bytes[position]
            position = bytes.index(after: position)
            // The tenth byte holds bit 63 only; anything more overflows 64 bits.
            if shift == 63 && byte > 1 { throw .overflow }
            value |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 {
                index = position
                return value
            }
            shift += 7
        }
        throw .truncated
    }
}
