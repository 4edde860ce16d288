import CSQLite
import LiteStorage

/// A key store kept in table `kv_<name>` with LiteCore's columns
/// `key, sequence, flags, version, body` (+ `expiration` once one is set).
package final class SQLiteKeyStore: KeyStore, Sendable {
    /// The store's name.
    package let name: String
    // Strong: the file drops its store cache on close, which breaks the cycle.
    let file: SQLiteDataFile
    private let table: String
    private let sql: SQL

    /// The statements, built once per store (the table name is part of the text).
    private struct SQL {
        let insert, update, upsert, purge, countAll, countLive, setExpiration, exists: String
        let getExpiration, nextExpiration, expired: String
        /// `SELECT … WHERE key=?` / `WHERE sequence=?`, indexed by [content == .all][has expiration].
        let byKey, bySequence: [[String]]

        init(_ table: String) {
            func select(_ filter: String) -> [[String]] {
                [false, true].map { all in
                    [false, true].map { expiration in
                        "SELECT \(SQLiteKeyStore.selectList(all ? .all : .metaOnly, expiration: expiration)) "
                            + "FROM \(table) WHERE \(filter)"
                    }
                }
            }
            byKey = select("key=?")
            bySequence = select("sequence=?")
            insert = "INSERT OR IGNORE INTO \(table) (key, sequence, flags, version, body) VALUES (?, ?, ?, ?, ?)"
            update = "UPDATE \(table) SET sequence=?, flags=?, version=?, body=? WHERE key=? AND sequence=?"
            upsert = "INSERT INTO \(table) (key, sequence, flags, version, body) VALUES (?, ?, ?, ?, ?) "
                + "ON CONFLICT(key) DO UPDATE SET sequence=excluded.sequence, flags=excluded.flags, "
                + "version=excluded.version, body=excluded.body"
            purge = "DELETE FROM \(table) WHERE key=?"
            countAll = "SELECT count(*) FROM \(table)"
            countLive = "SELECT count(*) FROM \(table) WHERE (flags & 1) = 0"
            setExpiration = "UPDATE \(table) SET expiration=? WHERE key=?"
            exists = "SELECT 1 FROM \(table) WHERE key=?"
            getExpiration = "SELECT expiration FROM \(table) WHERE key=?"
            nextExpiration = "SELECT min(expiration) FROM \(table) WHERE expiration NOT NULL"
            expired = "SELECT key FROM \(table) WHERE expiration <= ? ORDER BY expiration, key"
        }
    }

    init(name: String, file: SQLiteDataFile) {
        self.name = name
        self.file = file
        table = SQLiteSchema.quoted(SQLiteSchema.table(name))
        sql = SQL(table)
    }

    // MARK: Reading

    fileprivate static func selectList(_ content: RecordContent, expiration: Bool) -> String {
        let body = content == .all ? "body" : "length(body)"
        return "sequence, flags, key, version, \(body)" + (expiration ? ", expiration" : "")
    }

    /// Decodes the row `selectList` produced.
    private static func record(_ row: SQLiteStatement, content: RecordContent, expiration: Bool) -> Record {
        let body = content == .all ? row.bytes(4) : []
        return Record(key: row.text(2), version: row.bytes(3), body: body,
                      flags: DocumentFlags(rawValue: UInt32(truncatingIfNeeded: row.int64(1))),
                      sequence: row.isNull(0) ? 0 : row.uint64(0),
                      expiration: expiration && !row.isNull(5) ? row.int64(5) : nil,
                      bodySize: content == .all ? body.count : Int(row.int64(4)))
    }

    /// The record with this key, or `nil`.
    package func get(_ key: String, content: RecordContent) throws -> Record? {
        try record(sql.byKey, content: content) { $0.bind(1, key) }
    }

    /// The record with this sequence, or `nil`.
    package func get(sequence: UInt64, content: RecordContent) throws -> Record? {
        try record(sql.bySequence, content: content) { $0.bind(1, sequence) }
    }

    /// The record one of `selects` (by content, then by whether the table has the expiration
    /// column) finds once `bind` has set its parameter; nil when there is none.
    private func record(_ selects: [[String]], content: RecordContent,
                        bind: (SQLiteStatement) -> Void) throws -> Record? {
        try file.withReader { connection in
            let expiration = try file.hasExpirationColumn(name, connection)
            let statement = try connection.cached(selects[content == .all ? 1 : 0][expiration ? 1 : 0])
            defer { statement.reset() }
            bind(statement)
            guard try statement.step() else { return nil }
            return Self.record(statement, content: content, expiration: expiration)
        }
    }

    /// The number of records, optionally counting deleted ones.
    package func recordCount(includeDeleted: Bool) throws -> Int {
        try file.withReader { Int(try $0.integer(includeDeleted ? sql.countAll : sql.countLive)) }
    }

    /// The highest sequence given in this store.
    package func lastSequence() throws -> UInt64 {
        try file.withReader { try file.readMeta(name, $0).0 }
    }

    /// How many records were ever purged from this store.
    package func purgeCount() throws -> UInt64 {
        try file.withReader { try file.readMeta(name, $0).1 }
    }

    // MARK: Enumerating

    /// Records in key order between `startKey` and `endKey` (inclusive).
    package func enumerate(startKey: String?, endKey: String?,
                           options: RecordEnumerationOptions) throws -> RecordEnumerator {
        var conditions: [String] = []
        if startKey != nil { conditions.append("key >= ?1") }
        if endKey != nil { conditions.append("key <= ?2") }
        return try cursor(conditions: conditions, order: options.descending ? "key DESC" : "key",
                          options: options) { statement in
            if let startKey { statement.bind(1, startKey) }
            if let endKey { statement.bind(2, endKey) }
        }
    }

    /// Records with a sequence greater than `since`, ascending.
    package func enumerate(since: UInt64, options: RecordEnumerationOptions) throws -> RecordEnumerator {
        try cursor(conditions: ["sequence > ?1"], order: "sequence", options: options) { statement in
            statement.bind(1, since)
        }
    }

    /// The record with `key`, its bytes lent from SQLite.
    @discardableResult
    package func visitRecord(_ key: String, _ visitor: (RecordView) throws -> Void) throws -> Bool {
        try file.withReader { connection in
            let expiration = try file.hasExpirationColumn(name, connection)
            let statement = try connection.cached(sql.byKey[1][expiration ? 1 : 0])
            defer { statement.reset() }
            statement.bind(1, key)
            guard try statement.step() else { return false }
            try visitor(RecordView(key: statement.borrowedBytes(2), body: statement.borrowedBytes(4),
                                   flags: DocumentFlags(rawValue: UInt32(truncatingIfNeeded: statement.int64(1))),
                                   sequence: statement.isNull(0) ? 0 : statement.uint64(0),
                                   expiration: expiration && !statement.isNull(5) ? statement.int64(5) : nil))
            return true
        }
    }

    /// Every accepted record in table order (no ORDER BY: one pass over the table's b-tree
    /// instead of a key-index walk with a table lookup per row) unless `options.inKeyOrder`,
    /// bytes lent from SQLite.
    package func visitRecords(options: RecordEnumerationOptions, _ visitor: (RecordView) throws -> Bool) throws {
        try file.withReader { connection in try visitRecords(options: options, acceptsInSQL: false, on: connection, visitor) }
    }

    /// The same, the bodies tested by `accepts` inside SQLite's scan (``SQLiteAcceptFunction``):
    /// a rejected record costs no result row. Without ORDER BY, SQLite evaluates the WHERE of a
    /// row just before it returns that row, which keeps the protocol's promise; in key order a
    /// sorter could test every row first, and without bodies the test must see the empty body
    /// the views lend (as every engine's does), so there the bodies are tested as they are lent.
    package func visitRecords(options: RecordEnumerationOptions, accepting accepts: (UnsafeRawBufferPointer) -> Bool,
                              _ visitor: (RecordView) throws -> Bool) throws {
        guard !options.inKeyOrder, options.content == .all else {
            return try visitRecordsTestingEachBody(options: options, accepting: accepts, visitor)
        }
        try file.withReader { connection in
            let function = try SQLiteAcceptFunction.on(connection)
            try withoutActuallyEscaping(accepts) { accepts in
                // A scan inside the visitor, on the same connection, keeps its own test.
                let outer = function.test
                function.test = accepts
                defer { function.test = outer }
                try visitRecords(options: options, acceptsInSQL: true, on: connection, visitor)
            }
        }
    }

    private func visitRecords(options: RecordEnumerationOptions, acceptsInSQL: Bool, on connection: SQLiteConnection,
                              _ visitor: (RecordView) throws -> Bool) throws {
        var conditions: [String] = []
        if !options.includeDeleted { conditions.append("(flags & 1) = 0") }
        if !options.requiredFlags.isEmpty {
            conditions.append("(flags & \(options.requiredFlags.rawValue)) = \(options.requiredFlags.rawValue)")
        }
        if acceptsInSQL { conditions.append("\(SQLiteAcceptFunction.name)(body)") }
        let filter = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
        let metadata = options.readsMetadata
        let expiration = try metadata && file.hasExpirationColumn(name, connection)
        let body = options.content == .all ? "body" : "NULL"
        // The rowid last, as each view's position (an index build links its entries by it).
        let statement = try connection.prepare("SELECT \(metadata ? "sequence" : "NULL"), flags, key, \(body)"
                                               + (expiration ? ", expiration" : "") + (metadata ? ", rowid" : "")
                                               + " FROM \(table)\(filter)"
                                               + (options.inKeyOrder ? " ORDER BY key" + (options.descending ? " DESC" : "") : ""))
        defer { statement.finalize() }
        let rowid: Int32 = expiration ? 5 : 4
        while try statement.step() {
            if try !visitor(Self.lentView(statement, expiration: expiration, position: metadata ? statement.int64(rowid) : 0)) {
                return
            }
        }
    }

    /// The record a row of `sequence, flags, key, body[, expiration]` lends, at `position` (valid until the
    /// statement steps again).
    static func lentView(_ statement: SQLiteStatement, expiration: Bool, position: Int64 = 0) -> RecordView {
        RecordView(key: statement.borrowedBytes(2), body: statement.borrowedBytes(3),
                   flags: DocumentFlags(rawValue: UInt32(truncatingIfNeeded: statement.int64(1))),
                   sequence: statement.isNull(0) ? 0 : statement.uint64(0),
                   expiration: expiration && !statement.isNull(4) ? statement.int64(4) : nil, position: position)
    }

    private func cursor(conditions: [String], order: String, options: RecordEnumerationOptions,
                        bind: (SQLiteStatement) -> Void) throws -> RecordEnumerator {
        var conditions = conditions
        if !options.includeDeleted { conditions.append("(flags & 1) = 0") }
        if !options.requiredFlags.isEmpty {
            conditions.append("(flags & \(options.requiredFlags.rawValue)) = \(options.requiredFlags.rawValue)")
        }
        let (connection, release, check) = try file.cursorConnection()
        let statement: SQLiteStatement
        let expiration: Bool
        do {
            expiration = try file.hasExpirationColumn(name, connection)
            let filter = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
            statement = try connection.prepare("SELECT \(Self.selectList(options.content, expiration: expiration)) "
                                               + "FROM \(table)\(filter) ORDER BY \(order)")
        } catch {
            release()
            throw error
        }
        bind(statement)
        let content = options.content
        return RecordEnumerator(next: {
            try check()
            guard try statement.step() else { return nil }
            return Self.record(statement, content: content, expiration: expiration)
        }, close: {
            statement.finalize()
            release()
        })
    }

    // MARK: Writing

    /// Stores `record` with the next sequence; see `KeyStore.set`.
    @discardableResult
    package func set(_ record: Record, ifSequence: UInt64?, in txn: borrowing WriteTransaction) throws -> UInt64 {
        try file.withWriter(txn) { writer in
            try file.ensureSequenceIndex(name, writer)
            var meta = try file.transactionMeta(name, writer)
            let sequence = meta.lastSequence + 1
            let statement: SQLiteStatement
            switch ifSequence {
            case 0?:
                statement = try writer.cached(sql.insert)
            case let expected?:
                statement = try writer.cached(sql.update)
                statement.bind(1, sequence)
                statement.bind(2, Int64(record.flags.rawValue))
                statement.bind(3, record.version)
                statement.bind(4, record.body)
                statement.bind(5, record.key)
                statement.bind(6, expected)
            case nil:
                statement = try writer.cached(sql.upsert)
            }
            if ifSequence == nil || ifSequence == 0 {
                statement.bind(1, record.key)
                statement.bind(2, sequence)
                statement.bind(3, Int64(record.flags.rawValue))
                statement.bind(4, record.version)
                statement.bind(5, record.body)
            }
            try statement.run()
            if writer.changes == 0 {
                throw StorageError(.conflict, "key store \"\(name)\": record \"\(record.key)\" "
                    + (ifSequence == 0 ? "already exists (insert-only write)"
                                       : "is no longer at sequence \(ifSequence ?? 0)")
                    + "; read it again and retry")
            }
            meta.lastSequence = sequence
            file.updateTransactionMeta(name, meta)
            return sequence
        }
    }

    /// Deletes the row for good and counts the purge.
    @discardableResult
    package func purge(_ key: String, in txn: borrowing WriteTransaction) throws -> Bool {
        try file.withWriter(txn) { writer in
            let statement = try writer.cached(sql.purge)
            statement.bind(1, key)
            try statement.run()
            guard writer.changes > 0 else { return false }
            var meta = try file.transactionMeta(name, writer)
            meta.purged += 1
            file.updateTransactionMeta(name, meta)
            return true
        }
    }

    // MARK: Expiration

    /// Sets or clears a record's expiration (adding the column and index on first use).
    @discardableResult
    package func setExpiration(_ key: String, to expiration: Int64?, in txn: borrowing WriteTransaction) throws -> Bool {
        try file.withWriter(txn) { writer in
            if let expiration {
                try file.ensureExpirationColumn(name, writer)
                let statement = try writer.cached(sql.setExpiration)
                statement.bind(1, expiration)
                statement.bind(2, key)
                try statement.run()
                return writer.changes > 0
            }
            if try file.hasExpirationColumn(name, writer) {
                let statement = try writer.cached(sql.setExpiration)
                statement.bindNull(1)
                statement.bind(2, key)
                try statement.run()
                return writer.changes > 0
            }
            let statement = try writer.cached(sql.exists)
            defer { statement.reset() }
            statement.bind(1, key)
            return try statement.step()
        }
    }

    /// The record's expiration, or `nil`.
    package func expiration(of key: String) throws -> Int64? {
        try file.withReader { connection in
            guard try file.hasExpirationColumn(name, connection) else { return nil }
            let statement = try connection.cached(sql.getExpiration)
            defer { statement.reset() }
            statement.bind(1, key)
            guard try statement.step(), !statement.isNull(0) else { return nil }
            return statement.int64(0)
        }
    }

    /// The earliest expiration in the store, or `nil`.
    package func nextExpiration() throws -> Int64? {
        try file.withReader { connection in
            guard try file.hasExpirationColumn(name, connection) else { return nil }
            let statement = try connection.cached(sql.nextExpiration)
            defer { statement.reset() }
            guard try statement.step(), !statement.isNull(0) else { return nil }
            return statement.int64(0)
        }
    }

    /// Keys whose expiration is at or before `now`, earliest first.
    package func expiredKeys(at now: Int64) throws -> [String] {
        try file.withReader { connection in
            guard try file.hasExpirationColumn(name, connection) else { return [] }
            let statement = try connection.cached(sql.expired)
            defer { statement.reset() }
            statement.bind(1, now)
            var keys: [String] = []
            while try statement.step() { keys.append(statement.text(0)) }
            return keys
        }
    }
}
