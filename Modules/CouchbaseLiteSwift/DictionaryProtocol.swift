import Foundation

/// Read access to a dictionary of document properties: ``Document``, ``DictionaryObject`` and
/// their mutable kinds. A getter whose value has another type returns nil (objects) or 0/false.
///
/// ```swift
/// let name = document.string(forKey: "name") ?? "?"
/// let age = document.int(forKey: "age")        // 0 when missing or not a number
/// ```
public protocol DictionaryProtocol {
    /// The number of properties.
    var count: Int { get }
    /// The property names.
    var keys: [String] { get }
    /// The value of a property: `String`, `Int`, `Double`, `Bool`, `NSNull`, `Blob`,
    /// ``DictionaryObject`` or ``ArrayObject``; nil when missing.
    func value(forKey key: String) -> Any?
    /// Whether the property exists (even when its value is null).
    func contains(key: String) -> Bool
    /// The properties as plain Swift values (nested dictionaries and arrays included).
    func toDictionary() -> [String: Any]
}

extension DictionaryProtocol {
    /// The property as a string, or nil.
    public func string(forKey key: String) -> String? { ValueConversion.string(value(forKey: key)) }
    /// The property as a number, or nil when it is not a number.
    public func number(forKey key: String) -> NSNumber? { ValueConversion.number(value(forKey: key)) }
    /// The property as an `Int` (0 when it is not a number; booleans give 0 or 1).
    public func int(forKey key: String) -> Int { ValueConversion.int(value(forKey: key)) }
    /// The property as an `Int64` (0 when it is not a number).
    public func int64(forKey key: String) -> Int64 { ValueConversion.int64(value(forKey: key)) }
    /// The property as a `Float` (0 when it is not a number).
    public func float(forKey key: String) -> Float { ValueConversion.float(value(forKey: key)) }
    /// The property as a `Double` (0 when it is not a number).
    public func double(forKey key: String) -> Double { ValueConversion.double(value(forKey: key)) }
    /// The property as a boolean: false when missing, null, false or 0; true otherwise.
    public func boolean(forKey key: String) -> Bool { ValueConversion.boolean(value(forKey: key)) }
    /// The property as a date: an ISO-8601 string parsed, or nil.
    public func date(forKey key: String) -> Date? { ValueConversion.date(value(forKey: key)) }
    /// The property as a blob, or nil.
    public func blob(forKey key: String) -> Blob? { ValueConversion.blob(value(forKey: key)) }
    /// The properties as JSON text.
    public func toJSON() -> String { JSONText.dictionary(self) }
}

/// Write access to a dictionary of document properties: ``MutableDocument`` and
/// ``MutableDictionaryObject``. Setters return the receiver, so calls can be chained.
///
/// ```swift
/// doc.setString("Ann", forKey: "name").setInt(41, forKey: "age")
/// ```
public protocol MutableDictionaryProtocol: DictionaryProtocol {
    /// Sets a property. Allowed: `String`, numbers, `Bool`, `Date`, `Blob`, `NSNull`, `nil` (stored
    /// as null), `[String: Any]`, `[Any]`, ``DictionaryObject``, ``ArrayObject``. Other types make
    /// the save fail with `.invalidParameter`.
    @discardableResult func setValue(_ value: Any?, forKey key: String) -> Self
    /// Removes a property.
    @discardableResult func removeValue(forKey key: String) -> Self
    /// Replaces every property.
    @discardableResult func setData(_ data: [String: Any]) -> Self
}

extension MutableDictionaryProtocol {
    /// Sets a string property.
    @discardableResult public func setString(_ value: String?, forKey key: String) -> Self { setValue(value, forKey: key) }
    /// Sets a number property.
    @discardableResult public func setNumber(_ value: NSNumber?, forKey key: String) -> Self { setValue(value, forKey: key) }
    /// Sets an integer property.
    @discardableResult public func setInt(_ value: Int, forKey key: String) -> Self { setValue(value, forKey: key) }
    /// Sets a 64-bit integer property.
    @discardableResult public func setInt64(_ value: Int64, forKey key: String) -> Self { setValue(value, forKey: key) }
    /// Sets a float property.
    @discardableResult public func setFloat(_ value: Float, forKey key: String) -> Self { setValue(value, forKey: key) }
    /// Sets a double property.
    @discardableResult public func setDouble(_ value: Double, forKey key: String) -> Self { setValue(value, forKey: key) }
    /// Sets a boolean property.
    @discardableResult public func setBoolean(_ value: Bool, forKey key: String) -> Self { setValue(value, forKey: key) }
    /// Sets a date property (stored as an ISO-8601 string).
    @discardableResult public func setDate(_ value: Date?, forKey key: String) -> Self { setValue(value, forKey: key) }
    /// Sets a blob property; its content is stored when the document is saved.
    @discardableResult public func setBlob(_ value: Blob?, forKey key: String) -> Self { setValue(value, forKey: key) }
    /// Sets an array property.
    @discardableResult public func setArray(_ value: ArrayObject?, forKey key: String) -> Self { setValue(value, forKey: key) }
    /// Sets a dictionary property.
    @discardableResult public func setDictionary(_ value: DictionaryObject?, forKey key: String) -> Self { setValue(value, forKey: key) }
}
