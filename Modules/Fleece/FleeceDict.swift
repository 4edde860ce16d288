/// A read-only view of a Fleece dictionary: binary-search lookup by key, iteration in stored
/// order (shared integer keys first, then strings in byte order).
package struct FleeceDict: Sendable, Sequence {
    /// The dictionary as a value.
    package let value: FleeceValue
    /// The number of entries.
    package let count: Int
    let first: Int
    let wide: Bool

    init(_ value: FleeceValue) {
        self.value = value
        (count, wide, first) = value.reader.collection(value.offset)
    }

    /// Whether the dictionary has no entries.
    package var isEmpty: Bool { count == 0 }

    @inline(__always) func keyOffset(_ index: Int) -> Int {
        value.reader.dictionaryKeyOffset(index, first: first, wide: wide)
    }

    @inline(__always) func valueOffset(_ index: Int) -> Int {
        value.reader.dictionaryValueOffset(index, first: first, wide: wide)
    }

    /// The value for `key`, or nil when there is none.
    package subscript(key: String) -> FleeceValue? {
        var key = key
        return key.withUTF8 { self.value(forKeyBytes: UnsafeRawBufferPointer($0)) }
    }

    /// The value for a key given as UTF-8 bytes, or nil.
    package func value(forKeyBytes key: UnsafeRawBufferPointer) -> FleeceValue? {
        if let keys = value.document.keys, let index = keys.index(forBytes: key) {
            if let found = self.value(forSharedKey: index) { return found }
        }
        guard let index = search(key) else { return nil }
        return FleeceValue(document: value.document, offset: valueOffset(index))
    }

    /// The value for an integer (shared) key, or nil.
    package func value(forSharedKey key: Int) -> FleeceValue? {
        guard let index = value.reader.dictionaryIndex(sharedKey: key, count: count, first: first, wide: wide) else { return nil }
        return FleeceValue(document: value.document, offset: valueOffset(index))
    }

    func search(_ key: UnsafeRawBufferPointer) -> Int? {
        value.reader.dictionaryIndex(keyBytes: key, count: count, first: first, wide: wide)
    }

    /// The key at `index` as a string (a shared key decoded through the document's table; an
    /// unknown integer key as its decimal text).
    package func keyString(_ index: Int) -> String {
        let key = FleeceValue(document: value.document, offset: keyOffset(index))
        if let string = key.string { return string }
        let number = Int(key.int64)
        return value.document.keys?.string(for: number) ?? value.document.sharedKeys?.string(for: number) ?? String(number)
    }

    /// The key at `index` as a value (a string, or an integer for a shared key).
    func keyValue(_ index: Int) -> FleeceValue { FleeceValue(document: value.document, offset: keyOffset(index)) }

    /// The entry at `index` in stored order.
    func entry(_ index: Int) -> (key: String, value: FleeceValue) {
        (keyString(index), FleeceValue(document: value.document, offset: valueOffset(index)))
    }

    /// The key (a string, or an integer for a shared key) and the value at `index` in stored
    /// order, without decoding the key; nil when out of range.
    package func entryValues(at index: Int) -> (key: FleeceValue, value: FleeceValue)? {
        guard index >= 0, index < count else { return nil }
        return (keyValue(index), FleeceValue(document: value.document, offset: valueOffset(index)))
    }

    /// The keys in stored order.
    package var keys: [String] { (0..<count).map(keyString) }

    /// Iterates the entries in stored order.
    package struct Iterator: IteratorProtocol {
        let dict: FleeceDict
        var index = 0

        /// The next entry.
        package mutating func next() -> (key: String, value: FleeceValue)? {
            guard index < dict.count else { return nil }
            defer { index += 1 }
            return dict.entry(index)
        }
    }

    /// An iterator over the entries.
    package func makeIterator() -> Iterator { Iterator(dict: self) }
}
