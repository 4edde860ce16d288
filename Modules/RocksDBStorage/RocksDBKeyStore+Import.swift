import LiteStorage

extension RocksDBKeyStore: RecordImporting {
    /// Writes `record` with its own sequence and expiration, keeping the sequence and
    /// expiration indexes in step; see `RecordImporting.importRecord`.
    package func importRecord(_ record: Record, in txn: borrowing WriteTransaction) throws {
        let batch = try file.batch(txn)
        guard record.sequence > 0 else {
            throw StorageError.badImportSequence(store: name, key: record.key, sequence: 0, holder: nil)
        }
        let view = RocksDBView.transaction(batch)
        let holder = try file.handle.get(RocksDBLayout.sequenceKey(id, record.sequence), view: view) {
            String(decoding: $0, as: UTF8.self)
        }
        if let holder, holder != record.key {
            throw StorageError.badImportSequence(store: name, key: record.key, sequence: record.sequence,
                                                 holder: holder)
        }
        let key = RocksDBLayout.recordKey(id, record.key)
        let path = file.path
        if let existing = try file.handle.get(key, view: view, { try RocksDBRecordCodec.header($0, path: path) }) {
            file.delete(RocksDBLayout.sequenceKey(id, existing.sequence), in: batch)
            if let old = existing.expiration {
                file.delete(RocksDBLayout.expirationKey(id, old, record.key), in: batch)
            }
        }
        file.put(key, RocksDBRecordCodec.encode(sequence: record.sequence, flags: record.flags,
                                                expiration: record.expiration, version: record.version,
                                                body: record.body), in: batch)
        file.put(RocksDBLayout.sequenceKey(id, record.sequence), Array(record.key.utf8), in: batch)
        if let expiration = record.expiration {
            file.put(RocksDBLayout.expirationKey(id, expiration, record.key), [], in: batch)
        }
        var meta = try file.transactionMeta(id, name: name, in: batch)
        meta.lastSequence = max(meta.lastSequence, record.sequence)
        file.updateTransactionMeta(id, meta)
    }

    /// Sets the store's counters; see `RecordImporting.setCounters`.
    package func setCounters(lastSequence: UInt64, purgeCount: UInt64, in txn: borrowing WriteTransaction) throws {
        let batch = try file.batch(txn)
        let prefix = RocksDBLayout.prefix(RocksDBLayout.sequenceTag, id)
        let iterator = try file.handle.iterator(view: .transaction(batch), lower: prefix,
                                            upper: ByteKeyRange.successor(ofPrefix: prefix))
        defer { iterator.close() }
        iterator.seekLast()
        if try iterator.isValid() {
            let highest: UInt64 = RocksDBLayout.readBigEndian(iterator.key, at: prefix.count)
            if highest > lastSequence {
                throw StorageError(.invalidParameter, "key store \"\(name)\": last sequence \(lastSequence) is below "
                                   + "the highest stored sequence \(highest)")
            }
        }
        var meta = try file.transactionMeta(id, name: name, in: batch)
        meta.lastSequence = lastSequence
        // The commit writes initialPurgeCount + purged: make that sum the requested count.
        meta.initialPurgeCount = purgeCount
        meta.purged = 0
        file.updateTransactionMeta(id, meta)
    }
}
