import LiteStorage

extension SQLiteKeyStore {
    /// `UPDATE … SET flags` leaves the sequence column as it is.
    @discardableResult
    package func setFlags(_ key: String, to flags: DocumentFlags, in txn: borrowing WriteTransaction) throws -> Bool {
        try file.withWriter(txn) { writer in
            let statement = try writer.cached("UPDATE \(SQLiteSchema.quoted(SQLiteSchema.table(name))) SET flags=? WHERE key=?")
            statement.bind(1, Int64(flags.rawValue))
            statement.bind(2, key)
            try statement.run()
            return writer.changes > 0
        }
    }

    /// One conditional `UPDATE`: a read of the record and a second statement to write it back
    /// cost a push about twice as much for every document it marks synced.
    @discardableResult
    package func addFlags(_ flags: DocumentFlags, key: String, ifSequence sequence: UInt64,
                          in txn: borrowing WriteTransaction) throws -> Bool {
        try file.withWriter(txn) { writer in
            let statement = try writer.cached(
                "UPDATE \(SQLiteSchema.quoted(SQLiteSchema.table(name))) SET flags=flags|? WHERE key=? AND sequence=?")
            statement.bind(1, Int64(flags.rawValue))
            statement.bind(2, key)
            statement.bind(3, sequence)
            try statement.run()
            return writer.changes > 0
        }
    }
}
