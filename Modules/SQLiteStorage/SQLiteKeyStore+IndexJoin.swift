import Glibc
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
        if index.linkedTable == SQLiteSchema.table(name) {
            return try visitLinkedRecords(keyedBy: index, in: range, descending: descending, visitor)
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

    /// The join through an index whose entries hold their record's rowid: one step from each
    /// entry to its row. An entry whose rowid is missing or now names another record (the file
    /// was vacuumed, or written by a program that does not keep the link) is looked up by key
    /// instead, so the records are always the key join's.
    private func visitLinkedRecords(keyedBy index: SQLiteByteKeyStore, in range: ByteKeyRange, descending: Bool,
                                    _ visitor: (RecordView) throws -> Bool) throws {
        try file.withReader { connection in
            let expiration = try file.hasExpirationColumn(name, connection)
            guard let sql = index.linkedJoinSQL(range, descending: descending, expiration: expiration) else {
                throw StorageError(.unexpectedError, "index store \"\(index.name)\" has no link to the rows of \"\(name)\"")
            }
            let statement = try connection.cached(sql)
            defer { statement.reset() }
            SQLiteByteKeyStore.bind(range, statement)
            let valueColumn: Int32 = expiration ? 5 : 4
            while try statement.step() {
                let key = statement.borrowedBytes(2), value = statement.borrowedBytes(valueColumn)
                if key.count == value.count, let left = key.baseAddress, let right = value.baseAddress,
                   memcmp(left, right, key.count) == 0 {
                    if try !visitor(Self.lentView(statement, expiration: expiration)) { return }
                    continue
                }
                // The store's own lookup by key (on this snapshot's connection, another statement).
                var goesOn = true
                try visitRecord(String(decoding: value, as: UTF8.self)) { goesOn = try visitor($0) }
                if !goesOn { return }
            }
        }
    }
}
