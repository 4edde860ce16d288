import CRocksDB
import LiteStorage

/// A key store in RocksDB: records under `10|id|key`, a sequence index under `11|id|seq`, an
/// expiration index under `12|id|exp|key` (see ``RocksDBLayout``).
package final class RocksDBKeyStore: KeyStore, Sendable {
    /// The store's name.
    package let name: String
    let id: UInt32
    let file: RocksDBDataFile
    let recordPrefix: [UInt8]
    private let sequencePrefix: [UInt8]
    private let expirationPrefix: [UInt8]

    init(name: String, id: UInt32, file: RocksDBDataFile) {
        self.name = name
        self.id = id
        self.file = file
        recordPrefix = RocksDBLayout.prefix(RocksDBLayout.recordTag, id)
        sequencePrefix = RocksDBLayout.prefix(RocksDBLayout.sequenceTag, id)
        expirationPrefix = RocksDBLayout.prefix(RocksDBLayout.expirationTag, id)
    }

    var handle: RocksDBHandle { file.handle }
    var path: String { file.path }

    func recordKey(_ key: String) -> [UInt8] {
        var bytes = recordPrefix
        bytes.append(contentsOf: key.utf8)
        return bytes
    }

    // MARK: Reading

    func get(_ key: String, content: RecordContent, view: RocksDBView) throws -> Record? {
        try handle.get(recordKey(key), view: view) { value in
            try RocksDBRecordCodec.record(key: key, value, content: content, path: path)
        }
    }

    private func header(_ key: String, view: RocksDBView) throws -> RocksDBRecordCodec.Header? {
        try handle.get(recordKey(key), view: view) { try RocksDBRecordCodec.header($0, path: path) }
    }

    /// The record with this key, or `nil`.
    package func get(_ key: String, content: RecordContent) throws -> Record? {
        try get(key, content: content, view: try file.view())
    }

    /// The record with `key`, its bytes lent from RocksDB's pinned value (or from the open
    /// transaction's pending write) instead of copied into a ``Record``.
    @discardableResult
    package func visitRecord(_ key: String, _ visitor: (RecordView) throws -> Void) throws -> Bool {
        let stored = recordKey(key)
        let prefixLength = recordPrefix.count
        let found: Void? = try handle.get(stored, view: try file.view()) { value in
            let header = try RocksDBRecordCodec.header(value, path: path)
            try stored.withUnsafeBytes { keyBytes in
                try visitor(RecordView(key: UnsafeRawBufferPointer(rebasing: keyBytes[prefixLength...]),
                                       body: UnsafeRawBufferPointer(rebasing: value[header.versionRange.upperBound...]),
                                       flags: header.flags, sequence: header.sequence,
                                       expiration: header.expiration))
            }
        }
        return found != nil
    }

    /// The record with this sequence, or `nil`.
    package func get(sequence: UInt64, content: RecordContent) throws -> Record? {
        let view = try file.view()
        guard let key = try handle.get(RocksDBLayout.sequenceKey(id, sequence), view: view, {
            String(decoding: $0, as: UTF8.self)
        }) else { return nil }
        guard let record = try get(key, content: content, view: view), record.sequence == sequence else {
            return nil
        }
        return record
    }

    /// The number of records, optionally counting deleted ones.
    package func recordCount(includeDeleted: Bool) throws -> Int {
        let iterator = try handle.iterator(view: try file.view(), lower: recordPrefix,
                                       upper: ByteKeyRange.successor(ofPrefix: recordPrefix))
        defer { iterator.close() }
        var count = 0
        iterator.seekFirst()
        while try iterator.isValid() {
            if includeDeleted {
                count += 1
            } else {
                let header = try RocksDBRecordCodec.header(iterator.value, path: path)
                if !header.flags.contains(.deleted) { count += 1 }
            }
            iterator.next()
        }
        return count
    }

    /// The highest sequence given in this store.
    package func lastSequence() throws -> UInt64 { try file.readMeta(id, view: try file.view()).0 }

    /// How many records were ever purged from this store.
    package func purgeCount() throws -> UInt64 { try file.readMeta(id, view: try file.view()).1 }

    // MARK: Enumerating

    /// Records in key order with `startKey <= key <= endKey`.
    package func enumerate(startKey: String?, endKey: String?,
                           options: RecordEnumerationOptions) throws -> RecordEnumerator {
        let lower = startKey.map(recordKey) ?? recordPrefix
        // The smallest key after `endKey` is `endKey` followed by a zero byte.
        let upper = endKey.map { recordKey($0) + [0] } ?? ByteKeyRange.successor(ofPrefix: recordPrefix)
        let iterator = try handle.iterator(view: try file.view(), lower: lower, upper: upper)
        if options.descending { iterator.seekLast() } else { iterator.seekFirst() }
        let prefixLength = recordPrefix.count
        let path = self.path
        return RecordEnumerator(next: {
            while try iterator.isValid() {
                defer { if options.descending { iterator.previous() } else { iterator.next() } }
                let value = iterator.value
                let header = try RocksDBRecordCodec.header(value, path: path)
                guard options.accepts(header.flags) else { continue }
                let key = String(decoding: UnsafeRawBufferPointer(rebasing: iterator.key.dropFirst(prefixLength)), as: UTF8.self)
                return try RocksDBRecordCodec.record(key: key, value, content: options.content, path: path)
            }
            return nil
        }, close: { iterator.close() })
    }

    /// Records with a sequence greater than `since`, ascending.
    package func enumerate(since: UInt64, options: RecordEnumerationOptions) throws -> RecordEnumerator {
        let view = try file.view()
        let lower = since == .max ? ByteKeyRange.successor(ofPrefix: sequencePrefix) ?? sequencePrefix
                                  : RocksDBLayout.sequenceKey(id, since + 1)
        let iterator = try handle.iterator(view: view, lower: lower,
                                       upper: ByteKeyRange.successor(ofPrefix: sequencePrefix))
        iterator.seekFirst()
        return RecordEnumerator(next: { [self] in
            while try iterator.isValid() {
                defer { iterator.next() }
                let sequence: UInt64 = RocksDBLayout.readBigEndian(iterator.key, at: sequencePrefix.count)
                let key = String(decoding: iterator.value, as: UTF8.self)
                guard let record = try get(key, content: options.content, view: view),
                      record.sequence == sequence, options.accepts(record.flags) else { continue }
                return record
            }
            return nil
        }, close: { iterator.close() })
    }

    // MARK: Writing

    /// Stores `record` with the next sequence; see `KeyStore.set`.
    @discardableResult
    package func set(_ record: Record, ifSequence: UInt64?, in txn: borrowing WriteTransaction) throws -> UInt64 {
        let batch = try file.batch(txn)
        let existing = try header(record.key, view: .transaction(batch))
        if let ifSequence, ifSequence != (existing?.sequence ?? 0) {
            throw StorageError(.conflict, "key store \"\(name)\": record \"\(record.key)\" "
                + (ifSequence == 0 ? "already exists (insert-only write)"
                                   : "is no longer at sequence \(ifSequence)")
                + "; read it again and retry")
        }
        return try write(record, over: existing.map { RecordState(sequence: $0.sequence, expiration: $0.expiration) },
                         in: batch)
    }

    /// Stores `record` over the record as this transaction read it, without a second read (a
    /// save reads the document first anyway; the read costs as much as the write's other work).
    @discardableResult
    package func set(_ record: Record, replacing read: RecordState?, in txn: borrowing WriteTransaction) throws -> UInt64 {
        let batch = try file.batch(txn)
        #if DEBUG
        // The caller's promise, checked wherever the tests run.
        let existing = try header(record.key, view: .transaction(batch))
        guard existing?.sequence == read?.sequence, existing?.expiration == read?.expiration else {
            throw StorageError(.conflict, "key store \"\(name)\": record \"\(record.key)\" changed after this "
                + "transaction read it (sequence \(read?.sequence ?? 0), now \(existing?.sequence ?? 0))")
        }
        #endif
        return try write(record, over: read, in: batch)
    }

    /// Puts the record and its sequence entry, replacing `existing`'s.
    private func write(_ record: Record, over existing: RecordState?, in batch: RocksDBPendingWrites) throws -> UInt64 {
        var meta = try file.transactionMeta(id, name: name, in: batch)
        let sequence = meta.lastSequence + 1
        if let existing { file.delete(RocksDBLayout.sequenceKey(id, existing.sequence), in: batch) }
        file.put(recordKey(record.key), RocksDBRecordCodec.encode(sequence: sequence, flags: record.flags,
                                                                 expiration: existing?.expiration,
                                                                 version: record.version, body: record.body), in: batch)
        file.put(RocksDBLayout.sequenceKey(id, sequence), Array(record.key.utf8), in: batch)
        meta.lastSequence = sequence
        file.updateTransactionMeta(id, meta)
        return sequence
    }

    /// Removes the record and its index entries, and counts the purge.
    @discardableResult
    package func purge(_ key: String, in txn: borrowing WriteTransaction) throws -> Bool {
        let batch = try file.batch(txn)
        guard let existing = try header(key, view: .transaction(batch)) else { return false }
        file.delete(recordKey(key), in: batch)
        file.delete(RocksDBLayout.sequenceKey(id, existing.sequence), in: batch)
        if let expiration = existing.expiration {
            file.delete(RocksDBLayout.expirationKey(id, expiration, key), in: batch)
        }
        var meta = try file.transactionMeta(id, name: name, in: batch)
        meta.purged += 1
        file.updateTransactionMeta(id, meta)
        return true
    }

    // MARK: Expiration

    /// Sets or clears a record's expiration (the sequence does not change).
    @discardableResult
    package func setExpiration(_ key: String, to expiration: Int64?, in txn: borrowing WriteTransaction) throws -> Bool {
        let batch = try file.batch(txn)
        guard let record = try get(key, content: .all, view: .transaction(batch)) else { return false }
        guard record.expiration != expiration else { return true }
        if let old = record.expiration { file.delete(RocksDBLayout.expirationKey(id, old, key), in: batch) }
        if let expiration { file.put(RocksDBLayout.expirationKey(id, expiration, key), [], in: batch) }
        file.put(recordKey(key), RocksDBRecordCodec.encode(sequence: record.sequence, flags: record.flags,
                                                           expiration: expiration, version: record.version,
                                                           body: record.body), in: batch)
        return true
    }

    /// The record's expiration, or `nil`.
    package func expiration(of key: String) throws -> Int64? {
        try header(key, view: try file.view())?.expiration
    }

    private func expirationIterator() throws -> RocksDBIterator {
        let iterator = try handle.iterator(view: try file.view(), lower: expirationPrefix,
                                       upper: ByteKeyRange.successor(ofPrefix: expirationPrefix))
        iterator.seekFirst()
        return iterator
    }

    /// The earliest expiration in the store, or `nil`.
    package func nextExpiration() throws -> Int64? {
        let iterator = try expirationIterator()
        defer { iterator.close() }
        guard try iterator.isValid() else { return nil }
        return RocksDBLayout.unbiased(RocksDBLayout.readBigEndian(iterator.key, at: expirationPrefix.count))
    }

    /// Keys whose expiration is at or before `now`, earliest first.
    package func expiredKeys(at now: Int64) throws -> [String] {
        let iterator = try expirationIterator()
        defer { iterator.close() }
        var keys: [String] = []
        while try iterator.isValid() {
            let entry = iterator.key
            let expiration = RocksDBLayout.unbiased(RocksDBLayout.readBigEndian(entry, at: expirationPrefix.count))
            if expiration > now { break }
            keys.append(String(decoding: entry.dropFirst(expirationPrefix.count + 8), as: UTF8.self))
            iterator.next()
        }
        return keys
    }
}
