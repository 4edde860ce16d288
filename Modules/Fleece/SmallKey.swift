/// Up to 16 bytes of a short string packed into integers: a hashable key with no allocation,
/// used for the encoder's string de-duplication table and the shared-key lookup table.
struct SmallKey: Hashable, Sendable {
    var low: UInt64 = 0
    var high: UInt64 = 0
    var length: UInt8 = 0

    /// The empty key.
    init() {}

    /// Packs `bytes`; nil when it is longer than 16 bytes. Byte `i` lands in bits `8i…` of
    /// `low` (or of `high` from the ninth byte on), read a word at a time.
    @inline(__always)
    init?(_ bytes: UnsafeRawBufferPointer) {
        let count = bytes.count
        guard count <= 16 else { return nil }
        length = UInt8(count)
        guard count > 0, let base = bytes.baseAddress else { return }
        if count >= 8 {
            low = UInt64(littleEndian: base.loadUnaligned(as: UInt64.self))
            if count > 8 { high = Self.pack(base + 8, count - 8) }
        } else {
            low = Self.pack(base, count)
        }
    }

    /// 1…8 bytes in a little-endian word, with two overlapping loads and no byte loop (the
    /// overlapping bytes are the same in both, so OR-ing them keeps them).
    @inline(__always)
    private static func pack(_ base: UnsafeRawPointer, _ count: Int) -> UInt64 {
        switch count {
        case 8:
            return UInt64(littleEndian: base.loadUnaligned(as: UInt64.self))
        case 4...7:
            let first = UInt64(UInt32(littleEndian: base.loadUnaligned(as: UInt32.self)))
            let last = UInt64(UInt32(littleEndian: base.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self)))
            return first | last << (8 * UInt64(count - 4))
        case 2...3:
            let first = UInt64(UInt16(littleEndian: base.loadUnaligned(as: UInt16.self)))
            let last = UInt64(UInt16(littleEndian: base.loadUnaligned(fromByteOffset: count - 2, as: UInt16.self)))
            return first | last << (8 * UInt64(count - 2))
        default:
            return UInt64(base.load(as: UInt8.self))
        }
    }
}
