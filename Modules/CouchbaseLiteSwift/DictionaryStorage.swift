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

    func removeAll() {
        overrides.removeAll()
        addedKeys.removeAll()
        if let source { removed = Set(source.keys) }
        hasChanges = true
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
