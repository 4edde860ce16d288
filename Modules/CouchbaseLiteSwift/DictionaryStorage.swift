import Fleece
import Foundation

/// The contents of a dictionary (or a document's properties): a Fleece dictionary read lazily,
/// with the changes made since (for mutable ones). Nested containers read from Fleece are made
/// mutable on first access and kept, so edits to them are edits to this dictionary.
final class DictionaryStorage {
    let source: FleeceDict?
    let database: Database?
    let isMutable: Bool
    /// Values set, or containers made mutable, by key.
    private var overrides: [String: Any] = [:]
    /// Keys removed from the source.
    private var removed: Set<String> = []
    /// Keys not in the source, in the order they were first set.
    private var addedKeys: [String] = []
    /// Whether anything was set or removed (nested changes are tracked by the children).
    private(set) var hasChanges = false

    init(source: FleeceDict?, database: Database?, isMutable: Bool) {
        self.source = source
        self.database = database
        self.isMutable = isMutable
    }

    /// A mutable copy whose containers are copies too.
    func mutableCopy() -> DictionaryStorage {
        let copy = DictionaryStorage(source: source, database: database, isMutable: true)
        copy.removed = removed
        copy.addedKeys = addedKeys
        copy.hasChanges = hasChanges
        copy.overrides = overrides.mapValues(Self.copyContainer)
        return copy
    }

    private static func copyContainer(_ value: Any) -> Any {
        switch value {
        case let dictionary as DictionaryObject: return dictionary.toMutable()
        case let array as ArrayObject: return array.toMutable()
        default: return value
        }
    }

    var count: Int { keys.count }

    /// Source keys (stored order) that are still present, then added keys in the order set.
    var keys: [String] {
        var result: [String] = []
        if let source {
            result.reserveCapacity(source.count + addedKeys.count)
            for key in source.keys where !removed.contains(key) { result.append(key) }
        }
        result += addedKeys
        return result
    }

    /// A present entry as a save writes it.
    struct EncodingEntry {
        let key: String
        /// Its index in `source` while its stored value is untouched (not set, removed or handed
        /// out as a mutable container): a save copies that value from its Fleece form.
        let untouchedIndex: Int?
    }

    /// The present entries in the UTF-8 byte order of their keys (the order Couchbase Lite's
    /// mutable dictionaries write), found by walking the source by index: no lookup of each key
    /// in the source, and, with few overrides, no hashing of each key either.
    func entriesInByteOrder() -> [EncodingEntry] {
        var entries: [(prefix: UInt64, entry: EncodingEntry)] = []
        // Comparing a handful of set keys costs less than hashing every key for the dictionary.
        let fewOverrides = overrides.count <= 8 ? Array(overrides.keys) : nil
        if let source {
            entries.reserveCapacity(source.count + addedKeys.count)
            for index in 0..<source.count {
                let key = source.keyString(index)
                if !removed.isEmpty && removed.contains(key) { continue }
                let touched = fewOverrides.map { $0.contains(key) } ?? (overrides[key] != nil)
                entries.append((Self.bytePrefix(key), EncodingEntry(key: key, untouchedIndex: touched ? nil : index)))
            }
        }
        for key in addedKeys {
            entries.append((Self.bytePrefix(key), EncodingEntry(key: key, untouchedIndex: nil)))
        }
        // Equal prefixes (a shared first 8 bytes, or zero bytes read as padding) compare whole.
        entries.sort { $0.prefix != $1.prefix ? $0.prefix < $1.prefix : Self.precedesInByteOrder($0.entry.key, $1.entry.key) }
        return entries.map(\.entry)
    }

    /// The key's first 8 UTF-8 bytes as a big-endian integer (zero-padded), so that most keys
    /// sort on one integer comparison.
    static func bytePrefix(_ key: String) -> UInt64 {
        // Read from the contiguous bytes: stepping through `utf8.prefix(8)` cost ~300 instructions.
        if let prefix = key.utf8.withContiguousStorageIfAvailable({ bytePrefix(UnsafeRawBufferPointer($0)) }) {
            return prefix
        }
        var key = key
        return key.withUTF8 { bytePrefix(UnsafeRawBufferPointer($0)) }
    }

    private static func bytePrefix(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        if bytes.count >= 8 { return UInt64(bigEndian: bytes.loadUnaligned(as: UInt64.self)) }
        var prefix: UInt64 = 0
        for index in 0..<bytes.count { prefix |= UInt64(bytes[index]) << (56 - 8 * UInt64(index)) }
        return prefix
    }

    /// Whether `a` sorts before `b` in UTF-8 byte order, comparing the contiguous bytes at once.
    static func precedesInByteOrder(_ a: String, _ b: String) -> Bool {
        var a = a, b = b
        return a.withUTF8 { x in
            b.withUTF8 { y in
                let common = min(x.count, y.count)
                if common > 0, let xBytes = x.baseAddress, let yBytes = y.baseAddress {
                    let order = memcmp(xBytes, yBytes, common)
                    if order != 0 { return order < 0 }
                }
                return x.count < y.count
            }
        }
    }

    func contains(_ key: String) -> Bool {
        if overrides[key] != nil { return true }
        if removed.contains(key) { return false }
        return source?[key] != nil
    }

    func value(forKey key: String) -> Any? {
        if let value = overrides[key] { return value }
        if removed.contains(key) { return nil }
        guard let fleece = source?[key] else { return nil }
        let value = ValueConversion.value(fleece, database: database, mutable: isMutable)
        if isMutable && (value is DictionaryObject || value is ArrayObject) { overrides[key] = value }
        return value
    }

    /// The stored value of `key` while it has not been set, removed or handed out as a mutable
    /// container since the dictionary was read (a save can copy it from its Fleece form).
    func untouchedStoredValue(forKey key: String) -> FleeceValue? {
        guard overrides[key] == nil, !removed.contains(key) else { return nil }
        return source?[key]
    }

    func set(_ value: Any?, forKey key: String) {
        if source?[key] == nil && !addedKeys.contains(key) { addedKeys.append(key) }
        removed.remove(key)
        overrides[key] = ValueConversion.normalise(value)
        hasChanges = true
    }

    func removeValue(forKey key: String) {
        overrides.removeValue(forKey: key)
        if let index = addedKeys.firstIndex(of: key) { addedKeys.remove(at: index) }
        if source?[key] != nil { removed.insert(key) }
        hasChanges = true
    }

    /// Replaces every entry with `data`'s (``MutableDocument`` and ``MutableDictionaryObject``'s
    /// `setData`); keys are set in sorted order so new keys have a stable order.
    func replaceAll(with data: [String: Any]) {
        overrides.removeAll()
        addedKeys.removeAll()
        if let source { removed = Set(source.keys) }
        hasChanges = true
        for key in data.keys.sorted() { set(data[key], forKey: key) }
    }

    /// Whether this dictionary or anything inside it changed since it was read.
    var isChanged: Bool {
        hasChanges || overrides.values.contains { value in
            switch value {
            case let dictionary as DictionaryObject: return dictionary.storage.isChanged
            case let array as ArrayObject: return array.storage.isChanged
            default: return false
            }
        }
    }
}
