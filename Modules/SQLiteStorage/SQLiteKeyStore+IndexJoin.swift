import LiteStorage

extension SQLiteKeyStore {
    /// One statement joins the index's table to this one (the index outside, each value looked up
    /// in the key index), so a value index's candidates cost SQLite's own lookups, not a statement
    /// call per entry from Swift.
    package func visitRecords(keyedBy index: ByteKeyStore, in range: ByteKeyRange, descending: Bool,
                              _ visitor: (RecordView) throws -> Bool) throws {
        guard let index = index as? SQLiteByteKeyStore, index.file === file else {
            return try visitRecordsOneByOne(keyedBy: index, in: range, descending: descending, visitor)
        }
        try file.withReader { connection in
            let expiration = try file.hasExpirationColumn(name, connection)
            // CROSS JOIN keeps the index as the outer loop. The values are BLOBs and the keys
            // TEXT, which SQLite never finds equal, hence the CAST (the key index still serves it).
            let statement = try connection.cached(
                "SELECT kv.sequence, kv.flags, kv.key, kv.body" + (expiration ? ", kv.expiration" : "")
                    + " FROM \(index.table) AS ix CROSS JOIN \(SQLiteSchema.quoted(SQLiteSchema.table(name))) AS kv"
                    + " ON kv.key = CAST(ix.value AS TEXT)" + SQLiteByteKeyStore.filter(range, qualifier: "ix.")
                    + " ORDER BY ix.key" + (descending ? " DESC" : ""))
            defer { statement.reset() }
            SQLiteByteKeyStore.bind(range, statement)
            while try statement.step() {
                if try !visitor(Self.lentView(statement, expiration: expiration)) { return }
            }
        }
    }
}
