/// Binary search over a dictionary's keys, shared by ``FleeceDict`` and ``FleeceLentValue``:
/// entries are sorted with shared (integer) keys first, by number, then string keys by bytes.
extension FleeceReader {
    /// The offset of the key of entry `index` of a dictionary whose items start at `first`.
    @inline(__always)
    func dictionaryKeyOffset(_ index: Int, first: Int, wide: Bool) -> Int {
        resolve(first + 2 * index * (wide ? 4 : 2), wide: wide)
    }

    /// The offset of the value of entry `index` of a dictionary whose items start at `first`.
    @inline(__always)
    func dictionaryValueOffset(_ index: Int, first: Int, wide: Bool) -> Int {
        resolve(first + (2 * index + 1) * (wide ? 4 : 2), wide: wide)
    }

    /// The index of the entry whose key is the shared key `key`, or nil.
    func dictionaryIndex(sharedKey key: Int, count: Int, first: Int, wide: Bool) -> Int? {
        dictionarySearch(count: count) { index in
            let offset = dictionaryKeyOffset(index, first: first, wide: wide)
            let b0 = byte(offset)
            guard b0 >> 4 == 0 else { return 1 }   // string keys sort after every integer key
            // Shared keys are small non-negative short ints: 12 bits, big-endian.
            let stored = Int(b0 & 0x0F) << 8 | Int(byte(offset + 1))
            return stored < key ? -1 : (stored == key ? 0 : 1)
        }
    }

    /// The index of the entry whose key is the string with these UTF-8 bytes, or nil.
    func dictionaryIndex(keyBytes key: UnsafeRawBufferPointer, count: Int, first: Int, wide: Bool) -> Int? {
        dictionarySearch(count: count) { index in
            let offset = dictionaryKeyOffset(index, first: first, wide: wide)
            guard byte(offset) >> 4 == 4 else { return -1 }   // integer keys sort before every string key
            let (start, length) = stringBytes(offset)
            return compareBytes(UnsafeRawBufferPointer(start: base + start, count: length), key)
        }
    }

    /// Binary search over entries `0..<count`; `order` tells whether an entry's key sorts before
    /// (< 0), at (0) or after (> 0) the key sought.
    @inline(__always)
    private func dictionarySearch(count: Int, _ order: (Int) -> Int) -> Int? {
        var low = 0
        var high = count - 1
        while low <= high {
            let middle = (low + high) >> 1
            let found = order(middle)
            if found == 0 { return middle }
            if found < 0 { low = middle + 1 } else { high = middle - 1 }
        }
        return nil
    }
}
