/// An editable array that can start from a read Fleece array without copying its items;
/// nested collections become mutable when asked for with ``mutableDictionary(at:)`` /
/// ``mutableArray(at:)``.
package final class MutableArray {
    /// The array this one started from, if any.
    package let source: FleeceArray?
    private var items: [MutableValue]
    /// Whether anything was changed since it was made from its source.
    package private(set) var isChanged = false

    /// Makes an empty array.
    package init() {
        source = nil
        items = []
    }

    /// Makes an array holding the items of `source`.
    package init(_ source: FleeceArray) {
        self.source = source
        items = source.map { .fleece($0) }
    }

    /// The number of items.
    package var count: Int { items.count }

    /// A deep copy: nested mutable containers are copied, read values are shared (they are
    /// immutable).
    package func copy() -> MutableArray {
        let copy = source.map { MutableArray($0) } ?? MutableArray()
        copy.items = items.map { $0.deepCopy() }
        copy.isChanged = isChanged
        return copy
    }

    /// The item at `index`, or nil when out of range.
    package subscript(index: Int) -> MutableValue? {
        index >= 0 && index < items.count ? items[index] : nil
    }

    /// Replaces the item at `index`; returns false when the index is out of range.
    @discardableResult
    package func set(_ value: MutableValue, at index: Int) -> Bool {
        guard index >= 0 && index < items.count else { return false }
        items[index] = value
        isChanged = true
        return true
    }

    /// Adds an item at the end.
    package func append(_ value: MutableValue) {
        items.append(value)
        isChanged = true
    }

    /// Inserts an item before `index` (`count` appends); returns false when out of range.
    @discardableResult
    package func insert(_ value: MutableValue, at index: Int) -> Bool {
        guard index >= 0 && index <= items.count else { return false }
        items.insert(value, at: index)
        isChanged = true
        return true
    }

    /// Removes the item at `index`; returns false when out of range.
    @discardableResult
    package func remove(at index: Int) -> Bool {
        guard index >= 0 && index < items.count else { return false }
        items.remove(at: index)
        isChanged = true
        return true
    }

    /// Removes every item.
    package func removeAll() {
        items.removeAll()
        isChanged = true
    }

    /// The dictionary at `index`, made mutable in place (nil when it is not a dictionary).
    package func mutableDictionary(at index: Int) -> MutableDict? {
        guard index >= 0 && index < items.count, case let (dict, isCopy)? = items[index].mutableDictionary else { return nil }
        if isCopy { items[index] = .dictionary(dict) }
        return dict
    }

    /// The array at `index`, made mutable in place (nil when it is not an array).
    package func mutableArray(at index: Int) -> MutableArray? {
        guard index >= 0 && index < items.count, case let (array, isCopy)? = items[index].mutableArray else { return nil }
        if isCopy { items[index] = .array(array) }
        return array
    }

    /// Writes the array into `encoder`.
    package func encode(to encoder: FleeceEncoder) {
        encoder.beginArray(reservingCapacity: items.count)
        for item in items { item.encode(to: encoder) }
        encoder.endArray()
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
