/// A map from ``SmallKey`` to a non-negative `Int`, with open addressing and a cheap
/// multiply-shift hash: the encoder looks up every short string and every key it writes, and
/// Swift's `Dictionary` (SipHash per lookup) was a large share of encoding time.
struct SmallKeyTable: Sendable {
    private var keys: [SmallKey]
    /// -1 marks an empty slot.
    private var values: [Int]
    private var mask: Int
    /// The number of entries.
    private(set) var count = 0

    init(capacity: Int = 16) {
        var size = 16
        while size < capacity * 2 { size <<= 1 }
        keys = Array(repeating: SmallKey(), count: size)
        values = Array(repeating: -1, count: size)
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
            var slot = Self.hash(key) & mask
            while values[slot] >= 0 {
                if keys[slot] == key { return values[slot] }
                slot = (slot + 1) & mask
            }
            return nil
        }
        set {
            guard let newValue, newValue >= 0 else { return }
            if (count + 1) * 2 > values.count { grow() }
            var slot = Self.hash(key) & mask
            while values[slot] >= 0 {
                if keys[slot] == key {
                    values[slot] = newValue
                    return
                }
                slot = (slot + 1) & mask
            }
            keys[slot] = key
            values[slot] = newValue
            count += 1
        }
    }

    /// Empties the table, keeping its capacity.
    mutating func removeAll() {
        guard count > 0 else { return }
        for index in values.indices { values[index] = -1 }
        count = 0
    }

    private mutating func grow() {
        let oldKeys = keys, oldValues = values
        keys = Array(repeating: SmallKey(), count: oldValues.count * 2)
        values = Array(repeating: -1, count: oldValues.count * 2)
        mask = values.count - 1
        count = 0
        for index in oldValues.indices where oldValues[index] >= 0 {
            self[oldKeys[index]] = oldValues[index]
        }
    }
}
