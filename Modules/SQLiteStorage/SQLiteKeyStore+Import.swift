import LiteStorage

extension SQLiteKeyStore: RecordImporting {
    private var quotedTable: String { SQLiteSchema.quoted(SQLiteSchema.table(name)) }

    /// Writes `record` with its own sequence and expiration; see `RecordImporting.importRecord`.
    package func importRecord(_ record: Record, in txn: borrowing WriteTransaction) throws {
        try file.withWriter(txn) { writer in
            try file.ensureSequenceIndex(name, writer)
            try checkSequenceIsFree(record, writer)
            let upsert = try writer.cached(
                "INSERT INTO \(quotedTable) (key, sequence, flags, version, body) VALUES (?, ?, ?, ?, ?) "
                + "ON CONFLICT(key) DO UPDATE SET sequence=excluded.sequence, flags=excluded.flags, "
                + "version=excluded.version, body=excluded.body")
            upsert.bind(1, record.key)
            upsert.bind(2, record.sequence)
            upsert.bind(3, Int64(record.flags.rawValue))
            upsert.bind(4, record.version)
            upsert.bind(5, record.body)
            try upsert.run()
            // The upsert leaves the expiration column alone: set it (or clear a replaced one).
            let hasColumn = try file.hasExpirationColumn(name, writer)
            if record.expiration != nil || hasColumn {
                try setExpiration(record.key, to: record.expiration, in: txn)
            }
            var meta = try file.transactionMeta(name, writer)
            meta.lastSequence = max(meta.lastSequence, record.sequence)
            file.updateTransactionMeta(name, meta)
        }
    }

    /// Sets the store's `kvmeta` counters; see `RecordImporting.setCounters`.
    package func setCounters(lastSequence: UInt64, purgeCount: UInt64, in txn: borrowing WriteTransaction) throws {
        try file.withWriter(txn) { writer in
            let highest = try writer.cached("SELECT max(sequence) FROM \(quotedTable)")
            defer { highest.reset() }
            if try highest.step(), !highest.isNull(0), highest.uint64(0) > lastSequence {
                throw StorageError(.invalidParameter, "key store \"\(name)\": last sequence \(lastSequence) is below "
                                   + "the highest stored sequence \(highest.uint64(0))")
            }
            var meta = try file.transactionMeta(name, writer)
            meta.lastSequence = lastSequence
            // The commit writes initialPurgeCount + purged: make that sum the requested count.
            meta.initialPurgeCount = purgeCount
            meta.purged = 0
            file.updateTransactionMeta(name, meta)
        }
    }

    private func checkSequenceIsFree(_ record: Record, _ writer: SQLiteConnection) throws {
        guard record.sequence > 0 else {
            throw StorageError.badImportSequence(store: name, key: record.key, sequence: 0, holder: nil)
        }
        let holder = try writer.cached("SELECT key FROM \(quotedTable) WHERE sequence=?")
        defer { holder.reset() }
        holder.bind(1, record.sequence)
        if try holder.step(), holder.text(0) != record.key {
            throw StorageError.badImportSequence(store: name, key: record.key, sequence: record.sequence,
                                                 holder: holder.text(0))
        }
    }
}
