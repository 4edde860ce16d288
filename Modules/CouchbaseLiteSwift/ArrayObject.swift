import Foundation

/// A read-only array inside a document. Values are read lazily from the stored Fleece data.
public class ArrayObject: ArrayProtocol, Equatable, Hashable, Sequence {
    let storage: ArrayStorage

    init(storage: ArrayStorage) {
        self.storage = storage
    }

    /// The number of entries.
    public var count: Int { storage.count }
    /// The value at `index`, or nil when out of range.
    public func value(at index: Int) -> Any? { storage.value(at: index) }

    /// The value as an array, or nil.
    public func array(at index: Int) -> ArrayObject? { value(at: index) as? ArrayObject }
    /// The value as a dictionary, or nil.
    public func dictionary(at index: Int) -> DictionaryObject? { value(at: index) as? DictionaryObject }

    /// The values as plain Swift values.
    public func toArray() -> [Any] { storage.values.map(ValueConversion.plain) }

    /// A mutable copy.
    public func toMutable() -> MutableArrayObject { MutableArrayObject(storage: storage.mutableCopy()) }

    /// A fragment for chained access: `array[0]["name"].string`.
    public subscript(index: Int) -> Fragment { Fragment(value(at: index)) }

    /// Iterates the values.
    public func makeIterator() -> IndexingIterator<[Any]> { storage.values.makeIterator() }

    /// Equal when both hold equal values in the same order.
    public static func == (lhs: ArrayObject, rhs: ArrayObject) -> Bool {
        guard lhs.count == rhs.count else { return false }
        return (0..<lhs.count).allSatisfy { ValueConversion.equal(lhs.value(at: $0), rhs.value(at: $0)) }
    }

    /// Hashes what `==` compares.
    public func hash(into hasher: inout Hasher) { hasher.combine(count) }
}

/// An array inside a document that can be changed; changes are saved with the document.
public final class MutableArrayObject: ArrayObject, MutableArrayProtocol {
    /// An empty array.
    public init() {
        super.init(storage: ArrayStorage(items: [], database: nil))
    }

    /// An array holding `data`.
    public init(data: [Any]) {
        super.init(storage: ArrayStorage(items: [], database: nil))
        setData(data)
    }

    override init(storage: ArrayStorage) {
        super.init(storage: storage)
    }

    /// The value as a mutable array, or nil.
    public override func array(at index: Int) -> MutableArrayObject? { value(at: index) as? MutableArrayObject }
    /// The value as a mutable dictionary, or nil.
    public override func dictionary(at index: Int) -> MutableDictionaryObject? {
        value(at: index) as? MutableDictionaryObject
    }

    /// Replaces the value at `index` (out of range: logged, nothing changes).
    @discardableResult public func setValue(_ value: Any?, at index: Int) -> Self {
        if !storage.set(value, at: index) { Self.outOfRange("set", index, count) }
        return self
    }

    /// Appends a value.
    @discardableResult public func addValue(_ value: Any?) -> Self {
        storage.append(value)
        return self
    }

    /// Inserts a value at `index` (0…count; otherwise logged, nothing changes).
    @discardableResult public func insertValue(_ value: Any?, at index: Int) -> Self {
        if !storage.insert(value, at: index) { Self.outOfRange("insert at", index, count) }
        return self
    }

    /// Removes the value at `index` (out of range: logged, nothing changes).
    @discardableResult public func removeValue(at index: Int) -> Self {
        if !storage.remove(at: index) { Self.outOfRange("remove", index, count) }
        return self
    }

    /// Replaces every value with `data`.
    @discardableResult public func setData(_ data: [Any]) -> Self {
        storage.replaceAll(data)
        return self
    }

    /// A fragment that can also set the value: `array[0]["name"].value = "x"`.
    public override subscript(index: Int) -> MutableFragment {
        MutableFragment(parent: .array(self, index))
    }

    private static func outOfRange(_ operation: String, _ index: Int, _ count: Int) {
        Database.log.log(.warning, .database, "MutableArrayObject: cannot \(operation) index \(index) of an array of \(count)")
    }
}
