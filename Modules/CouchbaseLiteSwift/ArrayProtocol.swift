import Foundation

/// Read access to an array of document values: ``ArrayObject`` and ``MutableArrayObject``.
/// A getter whose value has another type (or an index out of range) returns nil or 0/false.
public protocol ArrayProtocol {
    /// The number of values.
    var count: Int { get }
    /// The value at `index`, or nil when out of range.
    func value(at index: Int) -> Any?
    /// The values as plain Swift values.
    func toArray() -> [Any]
}

extension ArrayProtocol {
    /// The value as a string, or nil.
    public func string(at index: Int) -> String? { ValueConversion.string(value(at: index)) }
    /// The value as a number, or nil.
    public func number(at index: Int) -> NSNumber? { ValueConversion.number(value(at: index)) }
    /// The value as an `Int` (0 when not a number).
    public func int(at index: Int) -> Int { ValueConversion.int(value(at: index)) }
    /// The value as an `Int64` (0 when not a number).
    public func int64(at index: Int) -> Int64 { ValueConversion.int64(value(at: index)) }
    /// The value as a `Float` (0 when not a number).
    public func float(at index: Int) -> Float { ValueConversion.float(value(at: index)) }
    /// The value as a `Double` (0 when not a number).
    public func double(at index: Int) -> Double { ValueConversion.double(value(at: index)) }
    /// The value as a boolean (false when missing, null, false or 0).
    public func boolean(at index: Int) -> Bool { ValueConversion.boolean(value(at: index)) }
    /// The value as a date parsed from ISO-8601, or nil.
    public func date(at index: Int) -> Date? { ValueConversion.date(value(at: index)) }
    /// The value as a blob, or nil.
    public func blob(at index: Int) -> Blob? { ValueConversion.blob(value(at: index)) }
    /// The values as JSON text.
    public func toJSON() -> String { JSONText.array(self) }
}

/// Write access to an array of document values: ``MutableArrayObject``.
/// Setters and inserts out of range do nothing (and are logged), as in 2.x they are errors.
public protocol MutableArrayProtocol: ArrayProtocol {
    /// Replaces the value at `index`.
    @discardableResult func setValue(_ value: Any?, at index: Int) -> Self
    /// Appends a value.
    @discardableResult func addValue(_ value: Any?) -> Self
    /// Inserts a value at `index` (0…count).
    @discardableResult func insertValue(_ value: Any?, at index: Int) -> Self
    /// Removes the value at `index`.
    @discardableResult func removeValue(at index: Int) -> Self
    /// Replaces every value.
    @discardableResult func setData(_ data: [Any]) -> Self
}

extension MutableArrayProtocol {
    /// Replaces the value at `index` with a string.
    @discardableResult public func setString(_ value: String?, at index: Int) -> Self { setValue(value, at: index) }
    /// Replaces the value at `index` with a number.
    @discardableResult public func setNumber(_ value: NSNumber?, at index: Int) -> Self { setValue(value, at: index) }
    /// Replaces the value at `index` with an `Int`.
    @discardableResult public func setInt(_ value: Int, at index: Int) -> Self { setValue(value, at: index) }
    /// Replaces the value at `index` with an `Int64`.
    @discardableResult public func setInt64(_ value: Int64, at index: Int) -> Self { setValue(value, at: index) }
    /// Replaces the value at `index` with a `Float`.
    @discardableResult public func setFloat(_ value: Float, at index: Int) -> Self { setValue(value, at: index) }
    /// Replaces the value at `index` with a `Double`.
    @discardableResult public func setDouble(_ value: Double, at index: Int) -> Self { setValue(value, at: index) }
    /// Replaces the value at `index` with a boolean.
    @discardableResult public func setBoolean(_ value: Bool, at index: Int) -> Self { setValue(value, at: index) }
    /// Replaces the value at `index` with a date (stored as ISO-8601).
    @discardableResult public func setDate(_ value: Date?, at index: Int) -> Self { setValue(value, at: index) }
    /// Replaces the value at `index` with a blob.
    @discardableResult public func setBlob(_ value: Blob?, at index: Int) -> Self { setValue(value, at: index) }
    /// Replaces the value at `index` with an array.
    @discardableResult public func setArray(_ value: ArrayObject?, at index: Int) -> Self { setValue(value, at: index) }
    /// Replaces the value at `index` with a dictionary.
    @discardableResult public func setDictionary(_ value: DictionaryObject?, at index: Int) -> Self { setValue(value, at: index) }

    /// Appends a string.
    @discardableResult public func addString(_ value: String?) -> Self { addValue(value) }
    /// Appends a number.
    @discardableResult public func addNumber(_ value: NSNumber?) -> Self { addValue(value) }
    /// Appends an `Int`.
    @discardableResult public func addInt(_ value: Int) -> Self { addValue(value) }
    /// Appends an `Int64`.
    @discardableResult public func addInt64(_ value: Int64) -> Self { addValue(value) }
    /// Appends a `Float`.
    @discardableResult public func addFloat(_ value: Float) -> Self { addValue(value) }
    /// Appends a `Double`.
    @discardableResult public func addDouble(_ value: Double) -> Self { addValue(value) }
    /// Appends a boolean.
    @discardableResult public func addBoolean(_ value: Bool) -> Self { addValue(value) }
    /// Appends a date (stored as ISO-8601).
    @discardableResult public func addDate(_ value: Date?) -> Self { addValue(value) }
    /// Appends a blob.
    @discardableResult public func addBlob(_ value: Blob?) -> Self { addValue(value) }
    /// Appends an array.
    @discardableResult public func addArray(_ value: ArrayObject?) -> Self { addValue(value) }
    /// Appends a dictionary.
    @discardableResult public func addDictionary(_ value: DictionaryObject?) -> Self { addValue(value) }

    /// Inserts a string at `index`.
    @discardableResult public func insertString(_ value: String?, at index: Int) -> Self { insertValue(value, at: index) }
    /// Inserts a number at `index`.
    @discardableResult public func insertNumber(_ value: NSNumber?, at index: Int) -> Self { insertValue(value, at: index) }
    /// Inserts an `Int` at `index`.
    @discardableResult public func insertInt(_ value: Int, at index: Int) -> Self { insertValue(value, at: index) }
    /// Inserts an `Int64` at `index`.
    @discardableResult public func insertInt64(_ value: Int64, at index: Int) -> Self { insertValue(value, at: index) }
    /// Inserts a `Float` at `index`.
    @discardableResult public func insertFloat(_ value: Float, at index: Int) -> Self { insertValue(value, at: index) }
    /// Inserts a `Double` at `index`.
    @discardableResult public func insertDouble(_ value: Double, at index: Int) -> Self { insertValue(value, at: index) }
    /// Inserts a boolean at `index`.
    @discardableResult public func insertBoolean(_ value: Bool, at index: Int) -> Self { insertValue(value, at: index) }
    /// Inserts a date (stored as ISO-8601) at `index`.
    @discardableResult public func insertDate(_ value: Date?, at index: Int) -> Self { insertValue(value, at: index) }
    /// Inserts a blob at `index`.
    @discardableResult public func insertBlob(_ value: Blob?, at index: Int) -> Self { insertValue(value, at: index) }
    /// Inserts an array at `index`.
    @discardableResult public func insertArray(_ value: ArrayObject?, at index: Int) -> Self { insertValue(value, at: index) }
    /// Inserts a dictionary at `index`.
    @discardableResult public func insertDictionary(_ value: DictionaryObject?, at index: Int) -> Self { insertValue(value, at: index) }
}
