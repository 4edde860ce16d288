/// Up to 16 bytes of a short string packed into integers: a hashable key with no allocation,
/// used for the encoder's string de-duplication table and the shared-key lookup table.
struct SmallKey: Hashable, Sendable {
    var low: UInt64 = 0
    var high: UInt64 = 0
    var length: UInt8 = 0

    /// The empty key.
    init() {}

    /// Packs `bytes`; nil when it is longer than 16 bytes.
    @inline(__always)
    init?(_ bytes: UnsafeRawBufferPointer) {
        let count = bytes.count
        guard count <= 16 else { return nil }
        length = UInt8(count)
        var index = 0
        while index < count {
            let byte = UInt64(bytes[index])
            if index < 8 { low |= byte << (UInt64(index) * 8) } else { high |= byte << (UInt64(index - 8) * 8) }
            index += 1
        }
    }
}
