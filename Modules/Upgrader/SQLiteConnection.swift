import CSQLite

/// A SQLite connection used by one thread at a time (opened with `SQLITE_OPEN_NOMUTEX`).
///
/// Only ever opened on the upgrader's private copy of a 1.x database, never on the original.
final class SQLiteConnection {
    /// The open `sqlite3*`; valid until ``close()``.
    let handle: OpaquePointer
    private var isOpen = true

    /// Opens the database file at `path` read-write (so SQLite can recover a copied WAL).
    init(path: String) throws(SQLiteFailure) {
        var connection: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX
        let result = sqlite3_open_v2(path, &connection, flags, nil)
        guard result == SQLITE_OK, let connection else {
            let message = connection.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(connection)
            throw SQLiteFailure(code: result, message: message, sql: nil)
        }
        sqlite3_extended_result_codes(connection, 1)
        handle = connection
    }

    deinit { close() }

    /// Closes the connection; statements still alive keep it as a zombie until finalized.
    func close() {
        guard isOpen else { return }
        isOpen = false
        sqlite3_close_v2(handle)
    }

    /// Runs SQL that returns no rows needed by the caller.
    func execute(_ sql: String) throws(SQLiteFailure) {
        let result = sqlite3_exec(handle, sql, nil, nil, nil)
        guard result == SQLITE_OK else { throw failure(result, sql: sql) }
    }

    /// Compiles one statement.
    func prepare(_ sql: String) throws(SQLiteFailure) -> SQLiteStatement {
        var statement: OpaquePointer?
        let result = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
        guard result == SQLITE_OK, let statement else { throw failure(result, sql: sql) }
        return SQLiteStatement(statement, connection: self, sql: sql)
    }

    /// The failure for a result code, with SQLite's current message.
    func failure(_ code: Int32, sql: String?) -> SQLiteFailure {
        SQLiteFailure(code: code, message: String(cString: sqlite3_errmsg(handle)), sql: sql)
    }
}
