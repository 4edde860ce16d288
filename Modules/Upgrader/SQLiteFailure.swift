import CSQLite

/// A failed SQLite call: its result code, SQLite's message, and the statement if any. Carried
/// as the `underlying` cause of an ``UpgraderError``.
struct SQLiteFailure: Error, CustomStringConvertible {
    /// The extended SQLite result code.
    let code: Int32
    /// SQLite's own message for it.
    let message: String
    /// The SQL being prepared or run, when there was one.
    let sql: String?

    /// True when SQLite says the file is damaged or not a database at all.
    var isCorruption: Bool {
        let primary = code & 0xFF
        return primary == SQLITE_CORRUPT || primary == SQLITE_NOTADB || primary == SQLITE_FORMAT
    }

    var description: String {
        let statement = sql.map { " in \"\($0)\"" } ?? ""
        return "SQLite error \(code): \(message)\(statement)"
    }
}
