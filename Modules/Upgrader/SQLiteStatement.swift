import CSQLite

/// A prepared statement: bind, step, read columns. Finalized when released.
final class SQLiteStatement {
    private let statement: OpaquePointer
    private let connection: SQLiteConnection
    private let sql: String

    init(_ statement: OpaquePointer, connection: SQLiteConnection, sql: String) {
        self.statement = statement
        self.connection = connection
        self.sql = sql
    }

    deinit { sqlite3_finalize(statement) }

    /// Resets the statement and clears its bindings, ready to run again.
    func reset() {
        sqlite3_reset(statement)
        sqlite3_clear_bindings(statement)
    }

    /// Binds an integer to a 1-based parameter.
    func bind(_ value: Int64, at index: Int32) throws(SQLiteFailure) {
        let result = sqlite3_bind_int64(statement, index, value)
        guard result == SQLITE_OK else { throw connection.failure(result, sql: sql) }
    }

    /// Binds text to a 1-based parameter (SQLite copies it).
    func bind(_ value: String, at index: Int32) throws(SQLiteFailure) {
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        let result = sqlite3_bind_text(statement, index, value, -1, transient)
        guard result == SQLITE_OK else { throw connection.failure(result, sql: sql) }
    }

    /// Advances to the next row; `false` when there are no more rows.
    func step() throws(SQLiteFailure) -> Bool {
        switch sqlite3_step(statement) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        case let result: throw connection.failure(result, sql: sql)
        }
    }

    /// True when the 0-based column of the current row is NULL.
    func isNull(_ column: Int32) -> Bool {
        sqlite3_column_type(statement, column) == SQLITE_NULL
    }

    /// The 0-based column as an integer (NULL reads as 0).
    func int64(_ column: Int32) -> Int64 {
        sqlite3_column_int64(statement, column)
    }

    /// The 0-based column's bytes (text or blob as stored); empty for NULL.
    func bytes(_ column: Int32) -> [UInt8] {
        // sqlite3_column_blob must be called before sqlite3_column_bytes (SQLite's rule for
        // avoiding a type conversion between the two calls).
        guard let pointer = sqlite3_column_blob(statement, column) else { return [] }
        let count = Int(sqlite3_column_bytes(statement, column))
        return Array(UnsafeRawBufferPointer(start: pointer, count: count))
    }

    /// The 0-based column as UTF-8 text (invalid sequences replaced); `nil` for NULL.
    func text(_ column: Int32) -> String? {
        guard !isNull(column) else { return nil }
        return String(decoding: bytes(column), as: UTF8.self)
    }
}
