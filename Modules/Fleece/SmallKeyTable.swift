/// A map from ``SmallKey`` to a non-negative `Int`, with open addressing and a cheap
/// multiply-shift hash: the encoder looks up every short string and every key it writes, and
/// Swift's `Dictionary` (SipHash per lookup) was a large share of encoding time.
struct SmallKeyTable: Sendable {
    /// A slot: its key and value, side by side so a probe touches one cache line.
    private struct Entry {
        var key = SmallKey()
        /// -1 marks an empty slot.
        var value = -1
    }

    private var entries: [Entry]
    private var mask: Int
    /// The number of entries.
    private(set) var count = 0

    init(capacity: Int = 16) {
        var size = 16
        while size < capacity * 2 { size <<= 1 }
        entries = Array(repeating: Entry(), count: size)
        mask = size - 1
    }

    @inline(__always)
    private static func hash(_ key: SmallKey) -> Int {
        var hash = key.low &* 0x9E37_79B9_7F4A_7C15
        hash ^= (key.high ^ UInt64(key.length)) &* 0xC2B2_AE3D_27D4_EB4F
        hash ^= hash >> 29
        return Int(truncatingIfNeeded: hash)
    }

    /// The value stored for `key`; setting a non-negative value inserts or replaces it.
    subscript(key: SmallKey) -> Int? {
        get {
            // Slots are always within the table (masked): no bounds checks needed.
            entries.withUnsafeBufferPointer { entries in
                var slot = Self.hash(key) & mask
                while entries[slot].value >= 0 {
                    if entries[slot].key == key { return entries[slot].value }
                    slot = (slot + 1) & mask
                }
                return nil
            }
        }
        set {
            guard let newValue, newValue >= 0 else { return }
            if (count + 1) * 2 > entries.count { grow() }
            let mask = self.mask
            let added = entries.withUnsafeMutableBufferPointer { entries -> Bool in
                var slot = Self.hash(key) & mask
                while entries[slot].value >= 0 {
                    if entries[slot].key == key {
                        entries[slot].value = newValue
                        return false
                    }
                    slot = (slot + 1) & mask
                }
                entries[slot] = Entry(key: key, value: newValue)
                return true
            }
            if added { count += 1 }
        }
    }

    /// Empties the table, keeping its capacity.
    mutating func removeAll() {
        guard count > 0 else { return }
        entries.withUnsafeMutableBufferPointer { entries in
            for index in entries.indices { entries[index].value = -1 }
        }
        count = 0
    }

    private mutating func grow() {
        let old = entries
        entries = Array(repeating: Entry(), count: old.count * 2)
        mask = entries.count - 1
        count = 0
        for entry in old where entry.value >= 0 {
            self[entry.key] = entry.value
        }
    }
}
