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
                let view = RecordView(key: statement.borrowedBytes(2), body: statement.borrowedBytes(3),
                                      flags: DocumentFlags(rawValue: UInt32(truncatingIfNeeded: statement.int64(1))),
                                      sequence: statement.isNull(0) ? 0 : statement.uint64(0),
                                      expiration: expiration && !statement.isNull(4) ? statement.int64(4) : nil)
                if try !visitor(view) { return }
            }
        }
    }
}
