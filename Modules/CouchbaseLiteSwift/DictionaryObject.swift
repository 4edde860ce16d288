import Foundation

/// A read-only dictionary inside a document. Values are read lazily from the stored Fleece data.
public class DictionaryObject: DictionaryProtocol, Equatable, Hashable, Sequence {
    let storage: DictionaryStorage

    init(storage: DictionaryStorage) {
        self.storage = storage
    }

    /// The number of entries.
    public var count: Int { storage.count }
    /// The property names: stored ones in stored order, then new ones in the order set.
    public var keys: [String] { storage.keys }
    /// The value of a property, or nil when it is missing.
    public func value(forKey key: String) -> Any? { storage.value(forKey: key) }
    /// Whether the property exists (even when it is null).
    public func contains(key: String) -> Bool { storage.contains(key) }

    /// The property as an array, or nil.
    public func array(forKey key: String) -> ArrayObject? { value(forKey: key) as? ArrayObject }
    /// The property as a dictionary, or nil.
    public func dictionary(forKey key: String) -> DictionaryObject? {
        let value = value(forKey: key)
        return value is Blob ? nil : value as? DictionaryObject
    }

    /// The properties as plain Swift values (nested dictionaries and arrays included).
    public func toDictionary() -> [String: Any] {
        var result: [String: Any] = [:]
        for key in keys {
            if let value = value(forKey: key) { result[key] = ValueConversion.plain(value) }
        }
        return result
    }

    /// A mutable copy.
    public func toMutable() -> MutableDictionaryObject {
        MutableDictionaryObject(storage: storage.mutableCopy())
    }

    /// A fragment for chained access: `dict["address"]["city"].string`.
    public subscript(key: String) -> Fragment { Fragment(value(forKey: key)) }

    /// Iterates the property names.
    public func makeIterator() -> IndexingIterator<[String]> { keys.makeIterator() }

    /// Equal when both hold the same keys with equal values.
    public static func == (lhs: DictionaryObject, rhs: DictionaryObject) -> Bool {
        guard lhs.count == rhs.count else { return false }
        return lhs.keys.allSatisfy { key in
            rhs.contains(key: key) && ValueConversion.equal(lhs.value(forKey: key), rhs.value(forKey: key))
        }
    }

    /// Hashes what `==` compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        for key in keys.sorted() { hasher.combine(key) }
    }
}

/// A dictionary inside a document that can be changed; changes are saved with the document.
///
/// ```swift
/// let address = MutableDictionaryObject()
/// address.setString("Paris", forKey: "city")
/// doc.setDictionary(address, forKey: "address")
/// ```
public final class MutableDictionaryObject: DictionaryObject, MutableDictionaryProtocol {
    /// An empty dictionary.
    public init() {
        super.init(storage: DictionaryStorage(source: nil, database: nil, isMutable: true))
    }

    /// A dictionary holding `data`.
    public init(data: [String: Any]) {
        super.init(storage: DictionaryStorage(source: nil, database: nil, isMutable: true))
        setData(data)
    }

    override init(storage: DictionaryStorage) {
        super.init(storage: storage)
    }

    /// The property as a mutable array, or nil.
    public override func array(forKey key: String) -> MutableArrayObject? {
        value(forKey: key) as? MutableArrayObject
    }

    /// The property as a mutable dictionary, or nil.
    public override func dictionary(forKey key: String) -> MutableDictionaryObject? {
        value(forKey: key) as? MutableDictionaryObject
    }

    /// Sets a property (see ``MutableDictionaryProtocol/setValue(_:forKey:)`` for the types allowed).
    @discardableResult public func setValue(_ value: Any?, forKey key: String) -> Self {
        storage.set(value, forKey: key)
        return self
    }

    /// Removes a property.
    @discardableResult public func removeValue(forKey key: String) -> Self {
        storage.removeValue(forKey: key)
        return self
    }

    /// Replaces every property with `data`.
    @discardableResult public func setData(_ data: [String: Any]) -> Self {
        storage.replaceAll(with: data)
        return self
    }

    /// A fragment that can also set the value: `dict["address"]["city"].value = "Paris"`.
    public override subscript(key: String) -> MutableFragment {
        MutableFragment(parent: .dictionary(self, key))
    }
}
