import CSQLite
import LiteStorage

extension SQLiteDataFile: ForeignIndexHolding {
    /// Drops LiteCore's index `name` as LiteCore's own `deleteIndex` does: its row in
    /// `indexes`, its SQL index (value and array indexes; an array index's `kv_…:unnest:…`
    /// table and triggers too once no index uses them), or its FTS4 table and the triggers
    /// that feed it.
    @discardableResult
    package func dropNativeForeignIndex(named name: String) throws -> Bool {
        try write { txn in
            try withWriter(txn) { writer in
                var dropped = false
                var tables: Set<String> = []
                let master = try writer.prepare("""
                    SELECT type, name, tbl_name FROM sqlite_master WHERE sql IS NOT NULL AND tbl_name GLOB 'kv_*' \
                    AND ((type = 'index' AND name = ?1 AND sql GLOB '*fl_*') OR \
                    (type = 'table' AND name GLOB '*::*' AND sql GLOB '*VIRTUAL*'))
                    """)
                var indexTables: [String] = []
                var ftsTables: [String] = []
                do {
                    defer { master.finalize() }
                    master.bind(1, name)
                    while try master.step() {
                        if master.text(0) == "index" {
                            indexTables.append(master.text(2))
                        } else if master.text(1).hasSuffix("::" + name),
                                  !master.text(1).dropLast(name.count + 2).contains(":") {
                            ftsTables.append(master.text(1))
                        }
                    }
                }
                if !indexTables.isEmpty {
                    try writer.execute("DROP INDEX IF EXISTS \(SQLiteSchema.quoted(name))")
                    tables.formUnion(indexTables.filter { $0.contains(":unnest:") })
                    dropped = true
                }
                for table in ftsTables {
                    try dropTriggers(of: table, writer)
                    try writer.execute("DROP TABLE IF EXISTS \(SQLiteSchema.quoted(table))")
                    dropped = true
                }
                // An array index's table goes when no index uses it any more (as in LiteCore).
                for table in tables.sorted() where try !hasIndexes(table, writer) {
                    try dropTriggers(of: table, writer)
                    try writer.execute("DROP TABLE IF EXISTS \(SQLiteSchema.quoted(table))")
                }
                if try tableExists("indexes", writer) {
                    let statement = try writer.prepare("DELETE FROM indexes WHERE name = ?")
                    defer { statement.finalize() }
                    statement.bind(1, name)
                    try statement.run()
                    if sqlite3_changes(writer.handle) > 0 { dropped = true }
                }
                if dropped { transaction?.changedSchema = true }
                return dropped
            }
        }
    }

    /// Reads LiteCore's value index `name` in its order (`INDEXED BY` makes SQLite use it or
    /// fail), each entry with its record's key and the index's expressions as SQLite evaluates
    /// them through the registered `fl_value`.
    package func foreignIndexEntries(named name: String) throws -> [ForeignIndexEntry] {
        try withReader { connection in
            let lookup = try connection.prepare("""
                SELECT tbl_name, sql FROM sqlite_master WHERE type = 'index' AND name = ? AND sql IS NOT NULL \
                AND tbl_name GLOB 'kv_*'
                """)
            defer { lookup.finalize() }
            lookup.bind(1, name)
            guard try lookup.step() else {
                throw StorageError(.notFound, "SQLite database \"\(path)\" has no index \"\(name)\" of Couchbase Lite's")
            }
            let table = lookup.text(0)
            guard try keyStoreNames().contains(String(table.dropFirst(3))),
                  let parsed = LiteCoreIndexSQL(lookup.text(1)), !parsed.columns.isEmpty else {
                throw StorageError(.notFound, "SQLite database \"\(path)\": index \"\(name)\" is not a value index "
                                   + "over a key store")
            }
            let columns = parsed.columns.joined(separator: ", ")
            let select = try connection.prepare("""
                SELECT key, \(columns) FROM \(SQLiteSchema.quoted(table)) INDEXED BY \(SQLiteSchema.quoted(name)) \
                ORDER BY \(columns)
                """)
            defer { select.finalize() }
            var entries: [ForeignIndexEntry] = []
            while try select.step() {
                let values = (1...Int32(parsed.columns.count)).map { scalar(select, $0) }
                entries.append(ForeignIndexEntry(recordKey: select.text(0), values: values))
            }
            return entries
        }
    }

    /// Re-creates carried value indexes over plain properties as LiteCore 2.8 makes them: the
    /// SQL index (statement text identical to LiteCore's) and its `indexes` row (the table is
    /// created as LiteCore creates it when missing).
    @discardableResult
    package func restoreCarriedForeignIndexes() throws -> [String] {
        let carried = try carriedForeignIndexes().filter { $0.kind == .value }
        guard !carried.isEmpty else { return [] }
        return try write { txn in
            let stores = try keyStoreNames()
            var restored: [String] = []
            try withWriter(txn) { writer in
                for index in carried {
                    guard stores.contains(index.keyStore), let expression = index.expression,
                          let statement = LiteCoreIndexSQL.createStatement(
                            name: index.name, table: SQLiteSchema.table(index.keyStore), jsonExpression: expression)
                    else { continue }
                    let existing = try writer.prepare("SELECT 1 FROM sqlite_master WHERE name = ?")
                    let taken: Bool
                    do {
                        defer { existing.finalize() }
                        existing.bind(1, index.name)
                        taken = try existing.step()
                    }
                    if taken { continue }
                    if try !tableExists("indexes", writer) {
                        try writer.execute("CREATE TABLE indexes (name TEXT PRIMARY KEY, type INTEGER NOT NULL,"
                                           + " keyStore TEXT NOT NULL, expression TEXT, indexTableName TEXT)")
                    }
                    try writer.execute(statement)
                    let register = try writer.prepare("INSERT OR REPLACE INTO indexes (name, type, keyStore, expression) "
                                                      + "VALUES (?, 0, ?, ?)")
                    defer { register.finalize() }
                    register.bind(1, index.name)
                    register.bind(2, index.keyStore)
                    register.bind(3, expression)
                    try register.run()
                    restored.append(index.name)
                }
                if !restored.isEmpty { transaction?.changedSchema = true }
            }
            let carrier = try byteKeyStore(ForeignIndex.carrierStoreName)
            for name in restored { try carrier.delete(Array(name.utf8), in: txn) }
            return restored
        }
    }

    /// A column's value as `fl_value` represents values (an empty blob is JSON null).
    private func scalar(_ statement: SQLiteStatement, _ column: Int32) -> StoredScalar {
        switch sqlite3_column_type(statement.handle, column) {
        case SQLITE_NULL: return .missing
        case SQLITE_INTEGER: return .int(statement.int64(column))
        case SQLITE_FLOAT: return .double(sqlite3_column_double(statement.handle, column))
        case SQLITE_TEXT: return .text(statement.text(column))
        default:
            let bytes = statement.bytes(column)
            return bytes.isEmpty ? .null : .encoded(bytes)
        }
    }

    /// Drops the triggers LiteCore names after an index table (`<table>::ins` and so on).
    private func dropTriggers(of table: String, _ writer: SQLiteConnection) throws {
        for suffix in ["ins", "del", "upd", "preupdate", "postupdate"] {
            try writer.execute("DROP TRIGGER IF EXISTS \(SQLiteSchema.quoted(table + "::" + suffix))")
        }
    }

    private func hasIndexes(_ table: String, _ writer: SQLiteConnection) throws -> Bool {
        let statement = try writer.prepare("SELECT 1 FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL")
        defer { statement.finalize() }
        statement.bind(1, table)
        return try statement.step()
    }
}
