/// An editable dictionary that can start from a read Fleece dictionary without copying it:
/// changes are kept beside the source; nested collections become mutable when asked for.
///
/// Encoding writes entries in the order Fleece's `HeapDict` iterates them — the source's stored
/// order merged with the changed keys, integer (shared) keys first, then strings in byte order
/// — because the order out-of-line values are written in decides the bytes, and revision IDs
/// are digests of those bytes.
///
/// ```swift
/// let dict = MutableDict(document.root.dictionary!)
/// dict["age"] = .int(31)
/// dict.mutableArray(forKey: "tags")?.append(.string("new"))
/// let encoder = FleeceEncoder(sharedKeys: keys)
/// dict.encode(to: encoder)
/// let body = try encoder.finish()
/// ```
package final class MutableDict {
    /// The dictionary this one started from, if any.
    package let source: FleeceDict?
    /// Changed keys: a value, or nil for a key removed from the source.
    private var changes: [String: MutableValue?] = [:]
    /// The number of entries.
    package private(set) var count: Int
    /// Whether anything was changed since it was made from its source.
    package private(set) var isChanged = false

    /// Makes an empty dictionary.
    package init() {
        source = nil
        count = 0
    }

    /// Makes a dictionary holding the entries of `source`.
    package init(_ source: FleeceDict) {
        self.source = source
        count = source.count
    }

    private func sourceValue(_ key: String) -> FleeceValue? { source?[key] }

    /// A deep copy: nested mutable containers are copied, read values are shared (they are
    /// immutable).
    package func copy() -> MutableDict {
        let copy = source.map { MutableDict($0) } ?? MutableDict()
        copy.changes = changes.mapValues { $0.map { $0.deepCopy() } }
        copy.count = count
        copy.isChanged = isChanged
        return copy
    }

    /// The value for `key`, or nil. Setting nil removes the key.
    package subscript(key: String) -> MutableValue? {
        get {
            if let changed = changes[key] { return changed }
            return sourceValue(key).map { .fleece($0) }
        }
        set {
            if let newValue { set(newValue, forKey: key) } else { removeValue(forKey: key) }
        }
    }

    /// Whether the dictionary has a value for `key`.
    package func contains(_ key: String) -> Bool { self[key] != nil }

    /// Sets the value for `key`.
    package func set(_ value: MutableValue, forKey key: String) {
        if self[key] == nil { count += 1 }
        changes[key] = .some(value)
        isChanged = true
    }

    /// Removes the value for `key` (nothing happens when there is none).
    package func removeValue(forKey key: String) {
        guard self[key] != nil else { return }
        count -= 1
        if sourceValue(key) != nil { changes[key] = .some(nil) } else { changes[key] = nil }
        isChanged = true
    }

    /// Removes every entry.
    package func removeAll() {
        for key in keys { removeValue(forKey: key) }
    }

    /// The dictionary for `key`, made mutable in place (nil when it is not a dictionary).
    package func mutableDictionary(forKey key: String) -> MutableDict? {
        guard case let (dict, isCopy)? = self[key]?.mutableDictionary else { return nil }
        if isCopy { replace(key, with: .dictionary(dict)) }
        return dict
    }

    /// The array for `key`, made mutable in place (nil when it is not an array).
    package func mutableArray(forKey key: String) -> MutableArray? {
        guard case let (array, isCopy)? = self[key]?.mutableArray else { return nil }
        if isCopy { replace(key, with: .array(array)) }
        return array
    }

    /// Puts the mutable copy of a read container in the place of the original.
    private func replace(_ key: String, with copy: MutableValue) {
        changes[key] = .some(copy)
        isChanged = true
    }

    /// The keys, in the order the dictionary encodes them.
    package var keys: [String] { orderedEntries().map(\.key) }

    /// The entries, in the order the dictionary encodes them.
    package var entries: [(key: String, value: MutableValue)] { orderedEntries() }

    /// A key as Fleece's `HeapDict` orders it: an integer when the source's shared-key table
    /// has it (a dictionary without a source never uses integers), else its UTF-8 bytes.
    private enum OrderKey {
        case shared(Int)
        case string([UInt8])

        static func < (a: OrderKey, b: OrderKey) -> Bool {
            switch (a, b) {
            case let (.shared(x), .shared(y)): return x < y
            case (.shared, .string): return true
            case (.string, .shared): return false
            case let (.string(x), .string(y)): return x.lexicographicallyPrecedes(y)
            }
        }

        static func == (a: OrderKey, b: OrderKey) -> Bool {
            switch (a, b) {
            case let (.shared(x), .shared(y)): return x == y
            case let (.string(x), .string(y)): return x == y
            default: return false
            }
        }
    }

    private func orderedEntries() -> [(key: String, value: MutableValue)] {
        let sharedKeys = source?.value.document.sharedKeys
        let changed = changes.map { (key, value) -> (OrderKey, String, MutableValue?) in
            if let sharedKeys, let index = sharedKeys.index(for: key) { return (.shared(index), key, value) }
            return (.string(Array(key.utf8)), key, value)
        }.sorted { $0.0 < $1.0 }
        var result: [(key: String, value: MutableValue)] = []
        result.reserveCapacity(count)
        var next = 0
        if let source {
            for index in 0..<source.count {
                let keyValue = source.keyValue(index)
                let orderKey: OrderKey = keyValue.tag == 4 ? .string(keyValue.data ?? []) : .shared(Int(keyValue.int64))
                while next < changed.count && changed[next].0 < orderKey {
                    if let value = changed[next].2 { result.append((changed[next].1, value)) }
                    next += 1
                }
                if next < changed.count && changed[next].0 == orderKey {
                    if let value = changed[next].2 { result.append((changed[next].1, value)) }
                    next += 1
                } else {
                    result.append((source.keyString(index), .fleece(FleeceValue(document: source.value.document, offset: source.valueOffset(index)))))
                }
            }
        }
        while next < changed.count {
            if let value = changed[next].2 { result.append((changed[next].1, value)) }
            next += 1
        }
        return result
    }

    /// Writes the dictionary into `encoder`.
    package func encode(to encoder: FleeceEncoder) {
        let entries = orderedEntries()
        encoder.beginDictionary(reservingCapacity: entries.count)
        for (key, value) in entries {
            encoder.writeKey(key)
            value.encode(to: encoder)
        }
        encoder.endDictionary()
    }

    /// The Fleece bytes of this value alone, keys mapped through `sharedKeys`.
    ///
    /// - Throws: ``FleeceError`` when a value cannot be encoded (NaN).
    package func encoded(sharedKeys: SharedKeys? = nil) throws -> [UInt8] {
        let encoder = FleeceEncoder(sharedKeys: sharedKeys)
        encode(to: encoder)
        return try encoder.finish()
    }
}
