import LiteStorage

extension SQLiteKeyStore {
    /// `UPDATE … SET flags` leaves the sequence column as it is.
    @discardableResult
    package func setFlags(_ key: String, to flags: DocumentFlags) throws -> Bool {
        try file.withWriter { writer in
            let statement = try writer.cached("UPDATE \(SQLiteSchema.quoted(SQLiteSchema.table(name))) SET flags=? WHERE key=?")
            statement.bind(1, Int64(flags.rawValue))
            statement.bind(2, key)
            try statement.run()
            return writer.changes > 0
        }
    }
}
