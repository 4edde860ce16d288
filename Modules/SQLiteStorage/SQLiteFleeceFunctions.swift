import CSQLite
import LiteStorage

/// Couchbase Lite's SQL functions over record bodies that index expressions in its files use,
/// registered on every connection of a data file opened with a `RecordValueReader`, so that
/// writing into a file with such an index works and keeps the index as Couchbase Lite would.
///
/// - `fl_value(body, path)`: the value at `path` of the current revision (SQL NULL when
///   missing; JSON null as an empty blob of subtype 0x67; booleans as 0/1 of subtype 0x68;
///   unsigned integers of subtype 0x69; arrays, dictionaries and data as Fleece blobs of
///   subtype 0x66), exactly as LiteCore's `fl_value` answers.
/// - `fl_root(body)`: the whole current revision, as `fl_value(body, NULL)`.
enum SQLiteFleeceFunctions {
    /// SQLite value subtypes LiteCore tags results with.
    static let fleeceDataSubtype: UInt32 = 0x66
    static let nullSubtype: UInt32 = 0x67
    static let booleanSubtype: UInt32 = 0x68
    static let unsignedSubtype: UInt32 = 0x69

    /// The reader behind one connection's functions (SQLite keeps a retained pointer to it).
    final class Context {
        let reader: any RecordValueReader
        init(reader: any RecordValueReader) { self.reader = reader }
    }

    static func register(on connection: SQLiteConnection, reader: any RecordValueReader) throws {
        for (name, arguments) in [("fl_value", Int32(2)), ("fl_root", Int32(1))] {
            let context = Unmanaged.passRetained(Context(reader: reader)).toOpaque()
            let result = sqlite3_create_function_v2(
                connection.handle, name, arguments, SQLITE_UTF8 | SQLITE_DETERMINISTIC, context,
                { sqlContext, count, values in SQLiteFleeceFunctions.call(sqlContext, count, values) },
                nil, nil,
                { pointer in if let pointer { Unmanaged<Context>.fromOpaque(pointer).release() } })
            guard result == SQLITE_OK else {
                throw connection.error(result, doing: "registering the SQL function \(name)")
            }
        }
        // LiteCore's FTS4 tables (their tokenizer and fl_fts_value) need the same reader.
        try SQLiteUnicodeSNTokenizer.register(on: connection, reader: reader)
    }

    private static func call(_ sqlContext: OpaquePointer?, _ count: Int32,
                             _ values: UnsafeMutablePointer<OpaquePointer?>?) {
        guard let sqlContext, let values, let pointer = sqlite3_user_data(sqlContext) else { return }
        let context = Unmanaged<Context>.fromOpaque(pointer).takeUnretainedValue()
        let bodyValue = values[0]
        var path: String?
        if count > 1, let pathValue = values[1], sqlite3_value_type(pathValue) != SQLITE_NULL,
           let text = sqlite3_value_text(pathValue) {
            path = String(cString: text)
        }
        do {
            let scalar: StoredScalar
            if sqlite3_value_type(bodyValue) == SQLITE_BLOB, let blob = sqlite3_value_blob(bodyValue) {
                let body = UnsafeRawBufferPointer(start: blob, count: Int(sqlite3_value_bytes(bodyValue)))
                scalar = try context.reader.value(atPath: path, inRecordBody: body)
            } else {
                scalar = try context.reader.value(atPath: path, inRecordBody: nil)
            }
            setResult(sqlContext, scalar)
        } catch {
            sqlite3_result_error(sqlContext, "\(error)", -1)
        }
    }

    private static func setResult(_ context: OpaquePointer, _ scalar: StoredScalar) {
        switch scalar {
        case .missing:
            sqlite3_result_null(context)
        case .null:
            sqlite3_result_zeroblob(context, 0)
            sqlite3_result_subtype(context, nullSubtype)
        case .bool(let value):
            sqlite3_result_int(context, value ? 1 : 0)
            sqlite3_result_subtype(context, booleanSubtype)
        case .int(let value):
            sqlite3_result_int64(context, value)
        case .unsigned(let value):
            sqlite3_result_int64(context, Int64(bitPattern: value))
            sqlite3_result_subtype(context, unsignedSubtype)
        case .double(let value):
            sqlite3_result_double(context, value)
        case .text(var value):
            value.withUTF8 { bytes in
                sqlite3_result_text(context, UnsafeRawPointer(bytes.baseAddress)?.assumingMemoryBound(to: CChar.self),
                                    Int32(clamping: bytes.count), sqliteTransient)
            }
        case .encoded(let bytes):
            bytes.withUnsafeBytes { buffer in
                sqlite3_result_blob(context, buffer.baseAddress ?? UnsafeRawPointer(bitPattern: 1),
                                    Int32(clamping: buffer.count), sqliteTransient)
            }
            sqlite3_result_subtype(context, fleeceDataSubtype)
        }
    }
}
