import CSQLite
import LiteStorage

extension SQLiteDataFile {
    // MARK: Key stores

    /// The key store `name` (table `kv_<name>`), created when missing.
    package func keyStore(_ name: String) throws -> any KeyStore {
        try StoreName.validate(name)
        try checkOpen()
        if let store = schema.withLock({ $0.keyStores[name] }) { return store }
        let table = SQLiteSchema.table(name)
        let exists = try withReader { try tableExists(table, $0) }
        if exists, try !keyStoreNames().contains(name) {
            throw StorageError(.invalidParameter, "SQLite database \"\(path)\": table \(table) is one of Couchbase "
                               + "Lite's own tables, not a key store")
        }
        if !exists {
            guard !isReadOnly else { throw StoreName.missingInReadOnlyFile("key store", name, engine: "SQLite", path: path) }
            try write { txn in
                try withWriter(txn) { writer in
                    // Another writer may have made it since the check above.
                    if try !tableExists(table, writer) {
                        try writer.execute(SQLiteSchema.createKeyStore(name))
                        transaction?.changedSchema = true
                    }
                }
            }
            schema.withLock { _ = $0.sequenceIndexed.insert(name) }
        }
        let store = SQLiteKeyStore(name: name, file: self)
        return schema.withLock { StoreName.register(store, as: name, in: &$0.keyStores) }
    }

    /// Names of the key stores: tables `kv_<name>` with exactly the key-store columns. LiteCore
    /// has other `kv_` tables (2.0's `kv_fts_map`, FTS4 tables `kv_x::y` and their shadow
    /// tables, array-index tables `kv_x:unnest:path`) that must never be taken for key stores.
    package func keyStoreNames() throws -> [String] {
        try sortedNames("""
            SELECT substr(m.name, 4) FROM sqlite_master m WHERE m.type='table' AND m.name GLOB 'kv_*' \
            AND m.sql NOT GLOB 'CREATE VIRTUAL TABLE*' \
            AND (SELECT group_concat(c.name, ',') FROM (SELECT name FROM pragma_table_info(m.name) ORDER BY cid) c) \
            IN ('key,sequence,flags,version,body', 'key,sequence,flags,version,body,expiration') \
            ORDER BY m.name
            """)
    }

    /// Drops `kv_<name>` and its `kvmeta` row.
    package func deleteKeyStore(_ name: String) throws {
        try StoreName.validate(name)
        try write { txn in
            try withWriter(txn) { connection in
                try connection.execute("DROP TABLE IF EXISTS \(SQLiteSchema.quoted(SQLiteSchema.table(name)))")
                transaction?.changedSchema = true
                let statement = try connection.cached("DELETE FROM kvmeta WHERE name=?")
                statement.bind(1, name)
                try statement.run()
            }
            transaction?.stores[name] = nil
        }
        schema.withLock { state in
            state.keyStores[name] = nil
            state.expiration[name] = nil
            state.sequenceIndexed.remove(name)
        }
    }

    // MARK: Byte-key stores

    /// The byte-key store `name` (table `bk_<name>`), created when missing.
    package func byteKeyStore(_ name: String) throws -> any ByteKeyStore {
        try byteKeyStore(name, linkedTo: nil)
    }

    /// The byte-key store `name`; when missing, created with a column linking each entry to
    /// the row of `kv_<keyStore>` its value names, which the index join then reads by rowid
    /// (``SQLiteKeyStore/visitRecords(keyedBy:in:descending:_:)``).
    package func indexStore(_ name: String, over keyStore: String) throws -> any ByteKeyStore {
        try StoreName.validate(keyStore)
        return try byteKeyStore(name, linkedTo: SQLiteSchema.table(keyStore))
    }

    private func byteKeyStore(_ name: String, linkedTo keyTable: String?) throws -> any ByteKeyStore {
        try StoreName.validate(name)
        try checkOpen()
        if let store = schema.withLock({ $0.byteStores[name] }) { return store }
        let table = SQLiteSchema.byteTable(name)
        if try !withReader({ try tableExists(table, $0) }) {
            guard !isReadOnly else { throw StoreName.missingInReadOnlyFile("byte-key store", name, engine: "SQLite", path: path) }
            try write { txn in
                try withWriter(txn) { try $0.execute(SQLiteSchema.createByteKeyStore(name, linkedTo: keyTable)) }
            }
        }
        // The link is read from the committed schema (the table was made in its own transaction).
        let linked = try withReader { connection -> String? in
            let statement = try connection.cached("SELECT substr(name, ?2) FROM pragma_table_info(?1) WHERE name GLOB ?3")
            defer { statement.reset() }
            statement.bind(1, table)
            statement.bind(2, Int64(SQLiteSchema.linkPrefix.utf8.count + 1))
            statement.bind(3, SQLiteSchema.linkPrefix + "*")
            return try statement.step() ? statement.text(0) : nil
        }
        let store = SQLiteByteKeyStore(name: name, file: self, linkedTable: linked)
        return schema.withLock { StoreName.register(store, as: name, in: &$0.byteStores) }
    }

    /// Names of the byte-key stores (tables `bk_<name>`).
    package func byteKeyStoreNames() throws -> [String] {
        try sortedNames("SELECT substr(name, 4) FROM sqlite_master WHERE type='table' AND name GLOB 'bk_*'")
    }

    /// Drops `bk_<name>`.
    package func deleteByteKeyStore(_ name: String) throws {
        try StoreName.validate(name)
        try write { txn in
            try withWriter(txn) {
                try $0.execute("DROP TABLE IF EXISTS \(SQLiteSchema.quoted(SQLiteSchema.byteTable(name)))")
            }
        }
        schema.withLock { _ = $0.byteStores.removeValue(forKey: name) }
    }

    // MARK: Schema knowledge

    /// The first column of every row `sql` returns, sorted.
    private func sortedNames(_ sql: String) throws -> [String] {
        try withReader { connection in
            let statement = try connection.cached(sql)
            defer { statement.reset() }
            var names: [String] = []
            while try statement.step() { names.append(statement.text(0)) }
            return names.sorted()
        }
    }

    func tableExists(_ table: String, _ connection: SQLiteConnection) throws -> Bool {
        let statement = try connection.cached("SELECT 1 FROM sqlite_master WHERE type='table' AND name=?")
        defer { statement.reset() }
        statement.bind(1, table)
        return try statement.step()
    }

    /// Whether `store`'s table has the `expiration` column, as `connection` sees it.
    func hasExpirationColumn(_ store: String, _ connection: SQLiteConnection) throws -> Bool {
        if connection === writer, scopes.isWriting, transaction?.addedExpiration.contains(store) == true {
            return true
        }
        let generation = shared.schemaGeneration.load(ordering: .acquiring)
        let known = schema.withLock { state -> Bool? in
            if state.generation != generation {
                state.expiration.removeAll()
                state.generation = generation
            }
            return state.expiration[store]
        }
        if let known { return known }
        let statement = try connection.cached("SELECT 1 FROM pragma_table_info(?) WHERE name='expiration'")
        defer { statement.reset() }
        statement.bind(1, SQLiteSchema.table(store))
        let found = try statement.step()
        // A plain reader sees the latest committed schema; so does the writer while its open
        // transaction has changed none (no other writer can commit meanwhile). A snapshot may
        // see an older one. Only those answers are cached: a push or a pull reads every
        // document on the writer or in a snapshot, and asked SQLite's table_info each time.
        let seesCommittedSchema = connection === writer
            ? scopes.isWriting && transaction.map { !$0.changedSchema && $0.addedExpiration.isEmpty } == true
            : scopes.currentSnapshot == nil
        if seesCommittedSchema {
            schema.withLock { state in
                if state.generation == generation { state.expiration[store] = found }
            }
        }
        return found
    }

    /// Adds the expiration column inside the open transaction when it is missing.
    func ensureExpirationColumn(_ store: String, _ writer: SQLiteConnection) throws {
        guard try !hasExpirationColumn(store, writer) else { return }
        try writer.execute(SQLiteSchema.addExpiration(store))
        transaction?.addedExpiration.insert(store)
        schema.withLock { _ = $0.expiration.removeValue(forKey: store) }
    }

    /// Creates `kv_<store>_seqs` (LiteCore makes it on demand) before the first write.
    func ensureSequenceIndex(_ store: String, _ writer: SQLiteConnection) throws {
        guard !schema.withLock({ $0.sequenceIndexed.contains(store) }) else { return }
        try writer.execute(SQLiteSchema.createSequenceIndex(store))
        schema.withLock { _ = $0.sequenceIndexed.insert(store) }
    }
}
