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
        var low = 0
        var high = count - 1
        while low <= high {
            let middle = (low + high) >> 1
            let offset = dictionaryKeyOffset(middle, first: first, wide: wide)
            let order: Int
            let b0 = byte(offset)
            if b0 >> 4 == 0 {
                // Shared keys are small non-negative short ints: 12 bits, big-endian.
                let stored = Int(b0 & 0x0F) << 8 | Int(byte(offset + 1))
                order = stored < key ? -1 : (stored == key ? 0 : 1)
            } else {
                order = 1   // string keys sort after every integer key
            }
            if order == 0 { return middle }
            if order < 0 { low = middle + 1 } else { high = middle - 1 }
        }
        return nil
    }

    /// The index of the entry whose key is the string with these UTF-8 bytes, or nil.
    func dictionaryIndex(keyBytes key: UnsafeRawBufferPointer, count: Int, first: Int, wide: Bool) -> Int? {
        var low = 0
        var high = count - 1
        while low <= high {
            let middle = (low + high) >> 1
            let offset = dictionaryKeyOffset(middle, first: first, wide: wide)
            let order: Int
            if byte(offset) >> 4 == 4 {
                let (start, length) = stringBytes(offset)
                order = compareBytes(UnsafeRawBufferPointer(start: base + start, count: length), key)
            } else {
                order = -1   // integer keys sort before every string key
            }
            if order == 0 { return middle }
            if order < 0 { low = middle + 1 } else { high = middle - 1 }
        }
        return nil
    }
}
