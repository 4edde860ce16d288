/// A value of a record's current revision, as an engine hands it to SQL (the representation
/// Couchbase Lite's own SQL functions use, so indexes it made stay correct).
package enum StoredScalar: Sendable, Equatable {
    /// No such property (SQL NULL).
    case missing
    /// JSON null (an empty blob, as Couchbase Lite represents it).
    case null
    /// A boolean (0 or 1).
    case bool(Bool)
    /// A signed integer.
    case int(Int64)
    /// An unsigned integer above `Int64.max`'s range is kept as its bit pattern.
    case unsigned(UInt64)
    /// A floating-point number.
    case double(Double)
    /// A string.
    case text(String)
    /// An array, dictionary or data, Fleece-encoded with the database's shared keys.
    case encoded([UInt8])
}

/// What an engine is told about documents, from above: how to read a value out of a record's
/// body (the current revision of a revision tree), so it can offer the SQL functions that
/// indexes in files written by Couchbase Lite use (`fl_value(body, 'path')`) without knowing
/// the document format itself — as LiteCore's data-file delegate does.
package protocol RecordValueReader: AnyObject, Sendable {
    /// The value at `path` (a key path such as `address.city` or `tags[0]`; nil: the whole
    /// body) of the current revision in `body`, a record's body column (nil: no body).
    func value(atPath path: String?, inRecordBody body: UnsafeRawBufferPointer?) throws -> StoredScalar
}
