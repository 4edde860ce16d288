import CSQLite
import LiteStorage

/// A byte-key store kept in table `bk_<name>` (`key BLOB PRIMARY KEY, value BLOB`,
/// `WITHOUT ROWID`); SQLite compares BLOBs with memcmp, which is unsigned byte order.
package final class SQLiteByteKeyStore: ByteKeyStore, Sendable {
    /// The store's name.
    package let name: String
    let file: SQLiteDataFile
    /// The quoted table name.
    let table: String
    /// The SQL of the point operations, made once: interpolating it per call was a String
    /// allocation per put (a full-text index build does thousands).
    private let putSQL: String, getSQL: String, deleteSQL: String
    /// One statement inserting ``rowsPerPut`` entries: a full-text index build puts about
    /// 1,350 entries, and a statement per entry (opening its cursor, stepping, resetting) cost
    /// about a third more than these in C.
    private let putRowsSQL: String
    private static let rowsPerPut = 32

    /// The key-store table whose rows the entries' values name, when the table has a link
    /// column (made by ``SQLiteDataFile/indexStore(_:over:)``): each put then stores that row's
    /// rowid beside the entry (NULL when there is none).
    let linkedTable: String?

    init(name: String, file: SQLiteDataFile, linkedTable: String? = nil) {
        self.name = name
        self.file = file
        self.linkedTable = linkedTable
        table = SQLiteSchema.quoted(SQLiteSchema.byteTable(name))
        getSQL = "SELECT value FROM \(table) WHERE key=?"
        deleteSQL = "DELETE FROM \(table) WHERE key=?"
        if let linkedTable {
            // One lookup in the key index per put, so that every read of the entry skips it.
            let column = SQLiteSchema.quoted(SQLiteSchema.linkColumn(linkedTable))
            let rowid = { (value: Int) in
                "(SELECT rowid FROM \(SQLiteSchema.quoted(linkedTable)) WHERE key = CAST(?\(value) AS TEXT))"
            }
            putSQL = "INSERT OR REPLACE INTO \(table) (key, value, \(column)) VALUES (?1, ?2, \(rowid(2)))"
            putRowsSQL = "INSERT OR REPLACE INTO \(table) (key, value, \(column)) VALUES "
                + (0..<Self.rowsPerPut).map { "(?\($0 * 2 + 1), ?\($0 * 2 + 2), \(rowid($0 * 2 + 2)))" }.joined(separator: ", ")
        } else {
            putSQL = "INSERT OR REPLACE INTO \(table) (key, value) VALUES (?, ?)"
            putRowsSQL = "INSERT OR REPLACE INTO \(table) (key, value) VALUES "
                + Array(repeating: "(?, ?)", count: Self.rowsPerPut).joined(separator: ", ")
        }
    }

    /// Stores `value` under `key`.
    package func put(_ key: [UInt8], _ value: [UInt8], in txn: borrowing WriteTransaction) throws {
        try file.withWriter(txn) { writer in
            try writer.cached(putSQL).run(bindingBlobs: key, value)
        }
    }

    /// Stores the entries, in order, ``rowsPerPut`` to a statement (the rest one by one).
    package func put(_ entries: [(key: [UInt8], value: [UInt8])], in txn: borrowing WriteTransaction) throws {
        var start = 0
        while entries.count - start >= Self.rowsPerPut {
            let rows = entries[start..<(start + Self.rowsPerPut)]
            try file.withWriter(txn) { writer in try writer.cached(putRowsSQL).run(bindingPairs: rows) }
            start += Self.rowsPerPut
        }
        for (key, value) in entries[start...] { try put(key, value, in: txn) }
    }

    /// The value under `key`, or `nil`.
    package func get(_ key: [UInt8]) throws -> [UInt8]? {
        try file.withReader { connection in
            let statement = try connection.cached(getSQL)
            defer { statement.reset() }
            statement.bind(1, key)
            return try statement.step() ? statement.bytes(0) : nil
        }
    }

    /// Removes `key`.
    @discardableResult
    package func delete(_ key: [UInt8], in txn: borrowing WriteTransaction) throws -> Bool {
        try file.withWriter(txn) { writer in
            let statement = try writer.cached(deleteSQL)
            statement.bind(1, key)
            try statement.run()
            return writer.changes > 0
        }
    }

    /// ` WHERE` and the range's bounds on column `key` (of table alias `qualifier`, if any), as
    /// parameters 1 and 2.
    static func filter(_ range: ByteKeyRange, qualifier: String = "") -> String {
        var conditions: [String] = []
        if range.lower != nil { conditions.append("\(qualifier)key >= ?1") }
        if range.upper != nil { conditions.append("\(qualifier)key < ?2") }
        return conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
    }

    /// Binds the range's bounds to ``filter(_:qualifier:)``'s parameters.
    static func bind(_ range: ByteKeyRange, _ statement: SQLiteStatement) {
        if let lower = range.lower { statement.bind(1, lower) }
        if let upper = range.upper { statement.bind(2, upper) }
    }

    /// Removes every key in `range`.
    @discardableResult
    package func delete(range: ByteKeyRange, in txn: borrowing WriteTransaction) throws -> Int {
        try file.withWriter(txn) { writer in
            let statement = try writer.cached("DELETE FROM \(table)\(Self.filter(range))")
            Self.bind(range, statement)
            try statement.run()
            return writer.changes
        }
    }

    /// Lends each entry in `range` from one cached statement on the reading connection (no
    /// cursor checks or copies per entry, as a query's read of an index's entries wants).
    package func visit(_ range: ByteKeyRange, descending: Bool,
                       _ visitor: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Bool) throws {
        try file.withReader { connection in
            let statement = try connection.cached("SELECT key, value FROM \(table)\(Self.filter(range)) "
                                                  + "ORDER BY key\(descending ? " DESC" : "")")
            defer { statement.reset() }
            Self.bind(range, statement)
            while try statement.step() {
                if try !visitor(statement.borrowedBytes(0), statement.borrowedBytes(1)) { return }
            }
        }
    }

    /// Entries in `range`, in key order.
    package func scan(_ range: ByteKeyRange, descending: Bool) throws -> ByteKeyEnumerator {
        let (connection, release, check) = try file.cursorConnection()
        let statement: SQLiteStatement
        do {
            statement = try connection.prepare("SELECT key, value FROM \(table)\(Self.filter(range)) "
                                               + "ORDER BY key\(descending ? " DESC" : "")")
        } catch {
            release()
            throw error
        }
        Self.bind(range, statement)
        return ByteKeyEnumerator(next: {
            try check()
            guard try statement.step() else { return nil }
            return ByteKeyEntry(key: statement.bytes(0), value: statement.bytes(1))
        }, close: {
            statement.finalize()
            release()
        })
    }

    /// The number of entries.
    package func count() throws -> Int {
        try file.withReader { Int(try $0.integer("SELECT count(*) FROM \(table)")) }
    }
}
