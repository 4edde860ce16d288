import Foundation

/// A value reached by chained subscripts, with typed accessors that never fail:
/// `document["address"]["city"].string`. Missing steps give a fragment that does not `exist`.
public class Fragment {
    private let storedValue: Any?

    init(_ value: Any?) {
        storedValue = value
    }

    /// The raw value, or nil when missing.
    public var value: Any? { currentValue }
    /// Whether there is a value here (null counts as a value).
    public var exists: Bool { currentValue != nil }
    /// The value as a string, or nil.
    public var string: String? { ValueConversion.string(currentValue) }
    /// The value as a number, or nil.
    public var number: NSNumber? { ValueConversion.number(currentValue) }
    /// The value as an `Int` (0 when not a number).
    public var int: Int { ValueConversion.int(currentValue) }
    /// The value as an `Int64` (0 when not a number).
    public var int64: Int64 { ValueConversion.int64(currentValue) }
    /// The value as a `Float` (0 when not a number).
    public var float: Float { ValueConversion.float(currentValue) }
    /// The value as a `Double` (0 when not a number).
    public var double: Double { ValueConversion.double(currentValue) }
    /// The value as a boolean.
    public var boolean: Bool { ValueConversion.boolean(currentValue) }
    /// The value as a date, or nil.
    public var date: Date? { ValueConversion.date(currentValue) }
    /// The value as a blob, or nil.
    public var blob: Blob? { ValueConversion.blob(currentValue) }
    /// The value as an array, or nil.
    public var array: ArrayObject? { currentValue as? ArrayObject }
    /// The value as a dictionary, or nil.
    public var dictionary: DictionaryObject? { currentValue as? DictionaryObject }

    /// The value under `key` when this is a dictionary.
    public subscript(key: String) -> Fragment {
        Fragment((currentValue as? DictionaryObject)?.value(forKey: key))
    }

    /// The value at `index` when this is an array.
    public subscript(index: Int) -> Fragment {
        Fragment((currentValue as? ArrayObject)?.value(at: index))
    }

    /// Subclasses read through to their parent container.
    var currentValue: Any? { storedValue }
}

/// A fragment of a mutable document or container, which can also set its value:
/// `doc["address"]["city"].value = "Paris"`.
public final class MutableFragment: Fragment {
    enum Parent {
        case dictionary(MutableDictionaryObject, String)
        case array(MutableArrayObject, Int)
        case document(MutableDocument, String)
        case none
    }

    private let parent: Parent

    init(parent: Parent) {
        self.parent = parent
        super.init(nil)
    }

    override var currentValue: Any? {
        switch parent {
        case .dictionary(let dictionary, let key): dictionary.value(forKey: key)
        case .array(let array, let index): array.value(at: index)
        case .document(let document, let key): document.value(forKey: key)
        case .none: nil
        }
    }

    /// The value; setting it sets the parent container's entry (nothing happens when the path
    /// does not lead to a mutable container).
    public override var value: Any? {
        get { currentValue }
        set {
            switch parent {
            case .dictionary(let dictionary, let key): dictionary.setValue(newValue, forKey: key)
            case .array(let array, let index): array.setValue(newValue, at: index)
            case .document(let document, let key): document.setValue(newValue, forKey: key)
            case .none: break
            }
        }
    }

    /// The value as a mutable array, or nil.
    public override var array: MutableArrayObject? { currentValue as? MutableArrayObject }
    /// The value as a mutable dictionary, or nil.
    public override var dictionary: MutableDictionaryObject? { currentValue as? MutableDictionaryObject }

    /// The value under `key` when this is a mutable dictionary.
    public override subscript(key: String) -> MutableFragment {
        guard let dictionary = currentValue as? MutableDictionaryObject else { return MutableFragment(parent: .none) }
        return MutableFragment(parent: .dictionary(dictionary, key))
    }

    /// The value at `index` when this is a mutable array.
    public override subscript(index: Int) -> MutableFragment {
        guard let array = currentValue as? MutableArrayObject else { return MutableFragment(parent: .none) }
        return MutableFragment(parent: .array(array, index))
    }
}

/// The result of `database["id"]`: the document, if it exists, with chained access.
public final class DocumentFragment {
    /// The document, or nil when it does not exist (or is deleted).
    public let document: Document?

    init(document: Document?) {
        self.document = document
    }

    /// Whether the document exists.
    public var exists: Bool { document != nil }

    /// A property of the document.
    public subscript(key: String) -> Fragment {
        Fragment(document?.value(forKey: key))
    }
}
