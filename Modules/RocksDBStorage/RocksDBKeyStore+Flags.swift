import LiteStorage

extension RocksDBKeyStore {
    /// Rewrites the record with new flags and its own sequence (the sequence index holds only
    /// the key, so it stays as it is).
    @discardableResult
    package func setFlags(_ key: String, to flags: DocumentFlags, in txn: borrowing WriteTransaction) throws -> Bool {
        let batch = try file.batch(txn)
        guard let record = try get(key, content: .all, view: .transaction(batch)) else { return false }
        guard record.flags != flags else { return true }
        file.put(recordKey(key), RocksDBRecordCodec.encode(sequence: record.sequence, flags: flags,
                                                           expiration: record.expiration, version: record.version,
                                                           body: record.body), in: batch)
        return true
    }

    /// A read and a rewrite, as ``setFlags(_:to:)``; nothing is written when the record's
    /// sequence differs or it has the flags already.
    @discardableResult
    package func addFlags(_ flags: DocumentFlags, key: String, ifSequence sequence: UInt64,
                          in txn: borrowing WriteTransaction) throws -> Bool {
        let batch = try file.batch(txn)
        guard let record = try get(key, content: .all, view: .transaction(batch)), record.sequence == sequence else {
            return false
        }
        let combined = record.flags.union(flags)
        guard combined != record.flags else { return true }
        file.put(recordKey(key), RocksDBRecordCodec.encode(sequence: record.sequence, flags: combined,
                                                           expiration: record.expiration, version: record.version,
                                                           body: record.body), in: batch)
        return true
    }
}
