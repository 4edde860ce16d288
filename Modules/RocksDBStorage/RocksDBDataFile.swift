import CRocksDB
import LiteStorage
import Synchronization
import LiteSupport

/// A RocksDB database folder (`db.rocksdb/`) opened through the storage seam.
///
/// A transaction is a RocksDB write batch plus a dictionary of its writes (reads inside it see
/// them, see ``RocksDBPendingWrites``), written atomically with a synced WAL on commit; readers read the latest commit or a RocksDB
/// snapshot. Across processes RocksDB's LOCK file lets only one process open the folder: a second
/// one gets `StorageError.busy`.
package final class RocksDBDataFile: TransactionalDataFile, @unchecked Sendable {
    // Unchecked: `transaction` and `lastTransactionWrites` belong to the thread holding the writer
    // lock (decisions Storage-1, Storage-26); the rest is `let`s, of C handles RocksDB makes
    // thread-safe.
    /// The folder.
    package let path: String
    /// `RocksDB`.
    package let engineName = RocksDBEngine.engineName
    /// Whether the folder was opened read-only.
    package let isReadOnly: Bool

    let handle: RocksDBHandle
    /// The shared transaction skeleton's state (write lock, thread scopes, observers).
    package let coordinator: TransactionCoordinator<RocksDBSnapshot>
    var shared: SharedFile { coordinator.shared }
    var scopes: ThreadScopes<RocksDBSnapshot> { coordinator.scopes }

    struct Catalog {
        var keyStores: [String: RocksDBKeyStore] = [:]
        var byteStores: [String: RocksDBByteKeyStore] = [:]
    }
    let catalog = Locked(Catalog())

    struct Transaction {
        let batch: RocksDBPendingWrites
        /// Per-store counters, by store ID.
        var stores: [UInt32: TransactionStoreCounters] = [:]
    }
    // Invariant: only the thread that owns the transaction (scopes.isWriting) touches it.
    var transaction: Transaction?
    /// How many keys the last committed transaction wrote (a capacity hint for the next one);
    /// only read and written while holding the writer lock.
    private var lastTransactionWrites = 0

    init(path: String, handle: RocksDBHandle, shared: SharedFile, readOnly: Bool) {
        self.path = path
        self.handle = handle
        coordinator = TransactionCoordinator(shared: shared, fileDescription: "RocksDB database \"\(path)\"")
        isReadOnly = readOnly
    }

    deinit { try? close() }   // allowed: a deinit cannot report; close() was the caller's to call and check

    func checkOpen() throws { try coordinator.checkOpen() }

    /// What the calling thread's reads see.
    func view() throws -> RocksDBView {
        try checkOpen()
        if scopes.isWriting, let transaction { return .transaction(transaction.batch) }
        if let snapshot = scopes.currentSnapshot { return .snapshot(snapshot) }
        return .latest
    }

    /// The writes of `txn`, this file's open transaction.
    func batch(_ txn: borrowing WriteTransaction) throws -> RocksDBPendingWrites {
        try checkOpen()
        try txn.check(belongsTo: coordinator)
        guard let transaction else {
            throw StorageError(.unexpectedError, "RocksDB database \"\(path)\": the open transaction's writes are missing")
        }
        return transaction.batch
    }

    func put(_ key: [UInt8], _ value: [UInt8], in batch: RocksDBPendingWrites) {
        batch.put(key, value)
    }

    func delete(_ key: [UInt8], in batch: RocksDBPendingWrites) {
        batch.delete(key)
    }

    /// Deletes every key in `lower ..< upper` as the transaction sees them.
    /// - Returns: how many keys were deleted.
    @discardableResult
    func deleteRange(lower: [UInt8], upper: [UInt8]?, in batch: RocksDBPendingWrites) throws -> Int {
        // Key by key (not DeleteRange), so that reads inside the transaction see the deletions.
        let iterator = try handle.iterator(view: .transaction(batch), lower: lower, upper: upper)
        var keys: [[UInt8]] = []
        iterator.seekFirst()
        while try iterator.isValid() {
            keys.append([UInt8](iterator.key))
            iterator.next()
        }
        iterator.close()
        for key in keys { delete(key, in: batch) }
        return keys.count
    }

    // MARK: Transactions

    /// Starts an empty overlay of writes; see `TransactionalDataFile.beginTransaction`.
    package func beginTransaction() throws {
        transaction = Transaction(batch: RocksDBPendingWrites(path: path, expectedWrites: lastTransactionWrites))
    }

    /// Writes the overlay and the touched stores' counters in one synced batch.
    package func commitTransaction() throws -> CommitEvent {
        guard let batch = transaction?.batch else {
            throw StorageError(.unexpectedError, "RocksDB database \"\(path)\": the transaction to commit is missing")
        }
        lastTransactionWrites = batch.count
        let event = try commit(batch)
        transaction = nil
        return event
    }

    /// Drops the overlay.
    package func abortTransaction() {
        transaction = nil
        // Stores created by the aborted transaction are gone: relearn IDs lazily.
        catalog.withLock { state in
            state.keyStores.removeAll()
            state.byteStores.removeAll()
        }
    }

    private func commit(_ batch: RocksDBPendingWrites) throws -> CommitEvent {
        var changes: [CommitEvent.StoreChange] = []
        for (id, meta) in transaction?.stores ?? [:] where meta.touched {
            var value: [UInt8] = []
            RocksDBLayout.appendBigEndian(&value, meta.lastSequence)
            RocksDBLayout.appendBigEndian(&value, meta.purgeCount)
            put(RocksDBLayout.metaKey(id), value, in: batch)
            changes.append(meta.change)
        }
        let writeBatch = try RocksDBBatchPool.take()
        defer { RocksDBBatchPool.giveBack(writeBatch) }
        try batch.fill(writeBatch)
        var error: UnsafeMutablePointer<CChar>?
        rocksdb_write(handle.db, handle.syncWriteOptions, writeBatch, &error)
        try RocksDBHandle.check(error, path: path, doing: "committing a transaction")
        return CommitEvent(path: path, changes: changes.sorted { $0.store < $1.store })
    }

    /// The open transaction's counters for store `id` (read from the file until it changes them).
    func transactionMeta(_ id: UInt32, name: String, in batch: RocksDBPendingWrites) throws -> TransactionStoreCounters {
        try .current(id, in: transaction?.stores, name: name) { try readMeta(id, view: .transaction(batch)) }
    }

    /// Keeps the transaction's changed counters for store `id`, written at commit.
    func updateTransactionMeta(_ id: UInt32, _ meta: TransactionStoreCounters) {
        transaction?.stores[id] = meta.markedTouched
    }

    /// Last sequence and purge count of store `id` as `view` sees them.
    func readMeta(_ id: UInt32, view: RocksDBView) throws -> (UInt64, UInt64) {
        if case .transaction = view, let meta = transaction?.stores[id] {
            return (meta.lastSequence, meta.purgeCount)
        }
        let value = try handle.get(RocksDBLayout.metaKey(id), view: view) { bytes -> (UInt64, UInt64) in
            guard bytes.count == 16 else { throw RocksDBRecordCodec.damaged(path) }
            return (RocksDBLayout.readBigEndian(bytes, at: 0), RocksDBLayout.readBigEndian(bytes, at: 8))
        }
        return value ?? (0, 0)
    }

    // MARK: Snapshots

    /// A RocksDB snapshot of the latest commit.
    package func beginReadSnapshot() throws -> RocksDBSnapshot {
        try RocksDBSnapshot(handle: handle)
    }

    /// Releases the RocksDB snapshot.
    package func endReadSnapshot(_ snapshot: RocksDBSnapshot) {
        snapshot.release()
    }

    // MARK: Maintenance

    /// Nothing to wait for: RocksDB's own flushes and compactions are not this seam's.
    package func waitForBackgroundWork() {}

    /// Compacts every level (drops deleted and overwritten values from disk).
    package func compact() throws {
        try checkOpen()
        guard !isReadOnly else { throw coordinator.readOnlyError }
        rocksdb_compact_range(handle.db, nil, 0, nil, 0)
    }

    /// Closes this instance (the shared RocksDB handle closes with the last one).
    package func close() throws {
        try coordinator.close(lockingWriter: !isReadOnly) {
            catalog.withLock { $0 = Catalog() }
            RocksDBEngine.releaseHandle(handle, shared: shared)
        }
    }
}
