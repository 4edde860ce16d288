import LiteSupport

/// Unsigned LEB128 integers, as BLIP writes message numbers, flags, property lengths and ACK
/// byte counts (the project's one ``Varint`` coding, with failures told as BLIP errors).
package enum BLIPVarint {
    /// The longest encoding of a `UInt64`.
    package static let maxLength = Varint.maxLength

    /// Appends the encoding of `value` to `bytes`.
    @inline(__always)
    package static func append(_ value: UInt64, to bytes: inout [UInt8]) {
        Varint.append(value, to: &bytes)
    }

    /// The encoding of `value`.
    package static func encode(_ value: UInt64) -> [UInt8] { Varint.encode(value) }

    /// Reads one varint starting at `index`, and moves `index` past it.
    ///
    /// - Throws: `BLIPError.protocolViolation` when the bytes end inside the varint, or when it
    ///   does not fit in 64 bits (longer than ten bytes, or a tenth byte above 1); `what` names
    ///   the field in the message.
    @inline(__always)
    package static func read<Bytes: Collection<UInt8>>(
        _ bytes: Bytes, at index: inout Bytes.Index, what: String = "varint"
    ) throws -> UInt64 {
        do throws(Varint.Failure) {
            return try Varint.read(bytes, at: &index, end: bytes.endIndex)
        } catch {
            switch error {
            case .truncated: throw BLIPError.protocolViolation("\(what) is truncated")
            case .overflow: throw BLIPError.protocolViolation("\(what) overflows 64 bits")
            }
        }
    }
}
