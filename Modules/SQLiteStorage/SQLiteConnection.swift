import CSQLite
import LiteStorage
import LiteSupport

/// One SQLite connection with its prepared-statement cache. The engine's connections, and the
/// upgrader's on its private copy of a 1.x database (the project's one SQLite wrapper).
///
/// Invariant: used by one thread at a time — the pool hands it to one reader, or it is the
/// writer connection and only the thread owning the transaction uses it.
package final class SQLiteConnection: @unchecked Sendable {
    // Unchecked: the invariant above (one thread at a time, opened `SQLITE_OPEN_NOMUTEX`); the
    // pool and the writer lock hand it over, which orders the accesses.
    /// The open `sqlite3*`.
    package let handle: OpaquePointer
    /// The database file.
    package let path: String
    private var statements: [String: SQLiteStatement] = [:]
    /// The last few statements `cached` returned: runs of the same statements (a full-text
    /// index writes a thousand puts in a row; a query's snapshot, join and metadata reads take
    /// turns) compare the SQL with them, a pointer comparison for the same String, instead of
    /// hashing the text into `statements` each time (a tenth of a query that reads ten rows).
    private var recentlyCached: [(sql: String, statement: SQLiteStatement)] = []
    /// The slot of `recentlyCached` the next statement found in `statements` replaces.
    private var nextRecentSlot = 0
    private static let recentlyCachedCount = 4
    private var isClosed = false
    /// The WAL-index header as it was just before the kept read transaction began; nil when no
    /// read transaction is kept open (see `SQLiteConnection+KeptRead.swift`).
    var keptReadHeader: WALIndexHeader?
    /// SQLite's own mapping of the first region of the `-shm` file, once looked up.
    var walIndex: UnsafeRawPointer?
    var walIndexLookedUp = false
    /// The scans' body test, once a scan has registered it (`SQLiteAcceptFunction`).
    var acceptFunction: SQLiteAcceptFunction?

    /// Opens a connection; `flags` are `SQLITE_OPEN_*` values. With `encryption`, the
    /// connection goes through the encrypting VFS and keeps SQLite's temporary data in memory.
    package init(path: String, flags: Int32, uri: String? = nil, encryption: SQLiteEncryption? = nil) throws {
        var db: OpaquePointer?
        var name = uri ?? path
        var flags = flags
        var vfs: String?
        if let encryption {
            guard SQLiteEncryptingVFS.isRegistered else {
                throw StorageError(.unsupportedEncryption, "SQLite database \"\(path)\": cannot register the encrypting "
                                   + "VFS with SQLite, so the encrypted file cannot be opened")
            }
            name = (uri ?? ("file:" + path.percentEncodingPath())) + (uri?.contains("?") == true ? "&" : "?")
                + encryption.uriParameter
            flags |= SQLITE_OPEN_URI
            vfs = SQLiteEncryptingVFS.name
        }
        let result = sqlite3_open_v2(name, &db, flags | SQLITE_OPEN_NOMUTEX, vfs)
        guard result == SQLITE_OK, let db else {
            let text = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            if let db { sqlite3_close_v2(db) }
            throw Self.error(code: result, text: text, path: path, doing: "opening")
        }
        handle = db
        self.path = path
        sqlite3_extended_result_codes(db, 1)
        if encryption != nil {
            // Sorts, temporary tables and statement journals would otherwise go to plaintext
            // files in the temporary folder (the VFS refuses to open those).
            try execute("PRAGMA temp_store=MEMORY")
        }
    }

    /// Gives pages `bytes` reserved bytes at their end (for the nonce and tag of encryption);
    /// takes effect only before the file's first page is written.
    func reserveBytesPerPage(_ bytes: Int32) throws {
        var count = bytes
        let result = sqlite3_file_control(handle, "main", SQLITE_FCNTL_RESERVE_BYTES, &count)
        guard result == SQLITE_OK else { throw error(result, doing: "reserving bytes per page for encryption") }
    }

    deinit { close() }

    /// Closes the connection, finalizing its cached statements.
    package func close() {
        guard !isClosed else { return }
        endKeptRead()
        isClosed = true
        walIndex = nil
        for statement in statements.values { statement.finalize() }
        statements.removeAll()
        recentlyCached.removeAll()
        sqlite3_close_v2(handle)
    }

    /// Runs one or more SQL statements that return nothing.
    package func execute(_ sql: String) throws {
        var message: UnsafeMutablePointer<CChar>?
        let result = sqlite3_exec(handle, sql, nil, nil, &message)
        if result != SQLITE_OK {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            sqlite3_free(message)
            throw Self.error(code: result, text: text, path: path, doing: "running \(sql)")
        }
    }

    /// The cached prepared statement for `sql`, reset and ready to bind.
    func cached(_ sql: String) throws -> SQLiteStatement {
        for recent in recentlyCached where recent.sql == sql {
            recent.statement.reset()
            return recent.statement
        }
        let statement: SQLiteStatement
        if let found = statements[sql] {
            statement = found
            statement.reset()
        } else {
            statement = try prepare(sql)
            statements[sql] = statement
        }
        if recentlyCached.count < Self.recentlyCachedCount {
            recentlyCached.append((sql, statement))
        } else {
            recentlyCached[nextRecentSlot] = (sql, statement)
            nextRecentSlot = (nextRecentSlot + 1) % Self.recentlyCachedCount
        }
        return statement
    }

    /// A new statement, finalized when released (for cursors that outlive one call).
    package func prepare(_ sql: String) throws -> SQLiteStatement {
        var statement: OpaquePointer?
        let result = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
        guard result == SQLITE_OK, let statement else {
            throw error(result, doing: "preparing \(sql)")
        }
        return SQLiteStatement(handle: statement, connection: self)
    }

    /// Drops cached statements (after the schema changed under an aborted transaction).
    func clearCache() {
        for statement in statements.values { statement.finalize() }
        statements.removeAll()
        recentlyCached.removeAll()
    }

    /// Rows changed by the last statement.
    var changes: Int { Int(sqlite3_changes(handle)) }

    /// Reads a single integer (a pragma, a count).
    func integer(_ sql: String) throws -> Int64 {
        let statement = try cached(sql)
        defer { statement.reset() }
        return try statement.step() ? statement.int64(0) : 0
    }

    /// A `StorageError` for a failed call on this connection.
    package func error(_ code: Int32, doing action: String) -> StorageError {
        Self.error(code: code, text: String(cString: sqlite3_errmsg(handle)), path: path, doing: action)
    }

    static func error(code: Int32, text: String, path: String, doing action: String) -> StorageError {
        let cause = EngineMessage(code: code, text, library: "SQLite")
        switch code & 0xFF {
        case SQLITE_NOTADB:
            return StorageError(.notADatabaseFile, "\"\(path)\" is not a SQLite database (while \(action))",
                                underlying: cause)
        case SQLITE_IOERR where code == SQLITE_IOERR_DATA:
            // Only the encrypting VFS reports this: a page that does not authenticate.
            return StorageError(.corruptData, "encrypted SQLite database \"\(path)\" is damaged or was altered: a page "
                                + "does not authenticate (while \(action)); restore it from a backup", underlying: cause)
        case SQLITE_CORRUPT:
            return StorageError(.corruptData, "SQLite database \"\(path)\" is damaged (while \(action)); "
                                + "restore it from a backup", underlying: cause)
        case SQLITE_BUSY, SQLITE_LOCKED:
            return StorageError(.busy, "SQLite database \"\(path)\" is locked by another connection or "
                                + "process (while \(action)); retry later", underlying: cause)
        case SQLITE_READONLY:
            return StorageError(.notWriteable, "SQLite database \"\(path)\" is read-only (while \(action))",
                                underlying: cause)
        case SQLITE_CANTOPEN, SQLITE_IOERR, SQLITE_FULL, SQLITE_PERM:
            return StorageError(.ioError, "SQLite database \"\(path)\": cannot read or write the file "
                                + "(while \(action)); check it exists, its permissions and free space",
                                underlying: cause)
        default:
            return StorageError(.unexpectedError, "SQLite database \"\(path)\": \(text) (while \(action))",
                                underlying: cause)
        }
    }
}
