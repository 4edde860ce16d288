import Fleece
import Foundation

/// The contents of an array: a Fleece array read lazily, or (once a mutable array is changed or
/// a nested container is reached for) a Swift array of values.
final class ArrayStorage {
    let source: FleeceArray?
    let database: Database?
    let isMutable: Bool
    private var items: [Any]?
    private(set) var hasChanges = false

    init(source: FleeceArray?, database: Database?, isMutable: Bool) {
        self.source = source
        self.database = database
        self.isMutable = isMutable
    }

    init(items: [Any], database: Database?) {
        source = nil
        self.database = database
        isMutable = true
        self.items = items
    }

    func mutableCopy() -> ArrayStorage {
        let copy = ArrayStorage(source: source, database: database, isMutable: true)
        copy.items = items?.map { value in
            switch value {
            case let dictionary as DictionaryObject: return dictionary.toMutable()
            case let array as ArrayObject: return array.toMutable()
            default: return value
            }
        }
        copy.hasChanges = hasChanges
        return copy
    }

    var count: Int { items?.count ?? source?.count ?? 0 }

    func value(at index: Int) -> Any? {
        if isMutable { return materialised()[safe: index] }
        if let items { return items[safe: index] }
        guard let fleece = source?[index] else { return nil }
        return ValueConversion.value(fleece, database: database, mutable: false)
    }

    var values: [Any] {
        if let items { return items }
        if isMutable { return materialised() }
        return (0..<count).compactMap { value(at: $0) }
    }

    /// The Swift items, converted once; nested containers become mutable and are kept.
    private func materialised() -> [Any] {
        if let items { return items }
        let converted = source.map { array in
            array.map { ValueConversion.value($0, database: database, mutable: true) }
        } ?? []
        items = converted
        return converted
    }

    func set(_ value: Any?, at index: Int) -> Bool {
        var current = materialised()
        guard current.indices.contains(index) else { return false }
        current[index] = ValueConversion.normalise(value)
        items = current
        hasChanges = true
        return true
    }

    func insert(_ value: Any?, at index: Int) -> Bool {
        var current = materialised()
        guard index >= 0, index <= current.count else { return false }
        current.insert(ValueConversion.normalise(value), at: index)
        items = current
        hasChanges = true
        return true
    }

    func append(_ value: Any?) {
        items = materialised() + [ValueConversion.normalise(value)]
        hasChanges = true
    }

    func remove(at index: Int) -> Bool {
        var current = materialised()
        guard current.indices.contains(index) else { return false }
        current.remove(at: index)
        items = current
        hasChanges = true
        return true
    }

    func replaceAll(_ values: [Any]) {
        items = values.map { ValueConversion.normalise($0) }
        hasChanges = true
    }

    var isChanged: Bool {
        hasChanges || (items ?? []).contains { value in
            switch value {
            case let dictionary as DictionaryObject: return dictionary.storage.isChanged
            case let array as ArrayObject: return array.storage.isChanged
            default: return false
            }
        }
    }
}

extension Array {
    subscript(safe index: Int) -> Element? {
        indices.contains(index) ? self[index] : nil
    }
}
