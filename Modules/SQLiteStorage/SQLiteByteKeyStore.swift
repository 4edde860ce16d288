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
    /// For a linked store, the puts of one and of ``rowsPerPut`` entries whose linked rows are
    /// known (``PackedByteKeyEntries``): the rowid bound, not looked up by key per entry.
    private let putPositionedSQL: (one: String, rows: String)?

    /// The key-store table whose rows the entries' values name, when the table has a link
    /// column (made by ``SQLiteDataFile/indexStore(_:over:)``): each put then stores that row's
    /// rowid beside the entry (NULL when there is none).
    let linkedTable: String?
    /// The text of ``visit(_:descending:_:)``'s statement for each ``shape(_:descending:)``, and of
    /// the linked join's (``SQLiteKeyStore/visitRecords(keyedBy:in:descending:_:)``) without and with
    /// an expiration column: made once, as building them cost a short query a tenth of its time.
    private let visitSQL: [String]
    private let linkedJoinSQL: [[String]]

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
            let quotedTable = table
            let positioned = { (rows: Int) in
                "INSERT OR REPLACE INTO \(quotedTable) (key, value, \(column)) VALUES "
                    + Array(repeating: "(?, ?, ?)", count: rows).joined(separator: ", ")
            }
            putPositionedSQL = (positioned(1), positioned(Self.rowsPerPut))
        } else {
            putSQL = "INSERT OR REPLACE INTO \(table) (key, value) VALUES (?, ?)"
            putRowsSQL = "INSERT OR REPLACE INTO \(table) (key, value) VALUES "
                + Array(repeating: "(?, ?)", count: Self.rowsPerPut).joined(separator: ", ")
            putPositionedSQL = nil
        }
        let shapes = (0..<8).map { (range: ByteKeyRange(lower: $0 & 1 == 0 ? nil : [], upper: $0 & 2 == 0 ? nil : []),
                                    descending: $0 & 4 != 0) }
        let quotedTable = table
        visitSQL = shapes.map { "SELECT key, value FROM \(quotedTable)\(Self.filter($0.range)) ORDER BY key\($0.descending ? " DESC" : "")" }
        if let linkedTable {
            let link = SQLiteSchema.quoted(SQLiteSchema.linkColumn(linkedTable))
            linkedJoinSQL = [false, true].map { expiration in
                shapes.map {
                    "SELECT kv.sequence, kv.flags, kv.key, kv.body" + (expiration ? ", kv.expiration" : "")
                        + ", ix.value FROM \(quotedTable) AS ix LEFT JOIN \(SQLiteSchema.quoted(linkedTable)) AS kv"
                        + " ON kv.rowid = ix.\(link)" + Self.filter($0.range, qualifier: "ix.")
                        + " ORDER BY ix.key" + ($0.descending ? " DESC" : "")
                }
            }
        } else {
            linkedJoinSQL = []
        }
    }

    /// Which of the statements made once reads `range` in that direction.
    private static func shape(_ range: ByteKeyRange, descending: Bool) -> Int {
        (range.lower == nil ? 0 : 1) | (range.upper == nil ? 0 : 2) | (descending ? 4 : 0)
    }

    /// The linked join's statement: each entry in `range` of this store beside the row of
    /// ``linkedTable`` its link names (NULL columns when none), in key order, with the
    /// table's expiration column when it has one; the entry's value last. Bind with ``bind(_:_:)``.
    func linkedJoinSQL(_ range: ByteKeyRange, descending: Bool, expiration: Bool) -> String? {
        linkedJoinSQL.isEmpty ? nil : linkedJoinSQL[expiration ? 1 : 0][Self.shape(range, descending: descending)]
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

    /// Stores the entries, in order, ``rowsPerPut`` to a statement, bound where they lie. A
    /// linked store takes each entry's position as its link when every entry has one of its
    /// key store (a rowid read in this transaction); otherwise each link is looked up by key.
    package func put(packed entries: PackedByteKeyEntries, in txn: borrowing WriteTransaction) throws {
        let sql: (one: String, rows: String)
        let positioned: Bool
        if let positionedSQL = putPositionedSQL, let keyStore = entries.positionsOf,
           SQLiteSchema.table(keyStore) == linkedTable, entries.entries.allSatisfy({ $0.position != 0 }) {
            (sql, positioned) = (positionedSQL, true)
        } else if linkedTable == nil {
            (sql, positioned) = ((putSQL, putRowsSQL), false)
        } else {
            // A linked store without positions looks each link up, through the arrays' statements.
            return try put(entries.pairs, in: txn)
        }
        try entries.bytes.withUnsafeBytes { bytes in
            let all = entries.entries
            var start = 0
            while start < all.count {
                let count = all.count - start >= Self.rowsPerPut ? Self.rowsPerPut : 1
                try file.withWriter(txn) { writer in
                    try writer.cached(count == 1 ? sql.one : sql.rows)
                        .run(bindingPacked: all[start..<(start + count)], in: bytes, positions: positioned)
                }
                start += count
            }
        }
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
            let statement = try connection.cached(visitSQL[Self.shape(range, descending: descending)])
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
