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
package final class RocksDBDataFile: DataFile, @unchecked Sendable {
    // Unchecked: `transaction` and `lastTransactionWrites` belong to the thread holding the writer
    // lock (decision Storage-1); the rest is `let`s, of C handles RocksDB makes thread-safe.
    /// The folder.
    package let path: String
    /// `RocksDB`.
    package let engineName = RocksDBEngine.engineName
    /// Whether the folder was opened read-only.
    package let isReadOnly: Bool

    let handle: RocksDBHandle
    let shared: SharedFile
    let scopes = ThreadScopes<RocksDBSnapshot>()
    private let closed = Atomic<Bool>(false)

    struct Catalog {
        var keyStores: [String: RocksDBKeyStore] = [:]
        var byteStores: [String: RocksDBByteKeyStore] = [:]
        var observerTokens: Set<CommitObserverToken> = []
    }
    let catalog = Locked(Catalog())

    struct StoreMeta {
        var name: String
        var initialLastSequence: UInt64
        var lastSequence: UInt64
        var initialPurgeCount: UInt64
        var purged: UInt64 = 0
        var touched = false
    }
    struct Transaction {
        let batch: RocksDBPendingWrites
        var stores: [UInt32: StoreMeta] = [:]
    }
    // Invariant: only the thread that owns the transaction (scopes.isWriting) touches it.
    var transaction: Transaction?
    /// How many keys the last committed transaction wrote (a capacity hint for the next one);
    /// only read and written while holding the writer lock.
    private var lastTransactionWrites = 0

    init(path: String, handle: RocksDBHandle, shared: SharedFile, readOnly: Bool) {
        self.path = path
        self.handle = handle
        self.shared = shared
        isReadOnly = readOnly
    }

    deinit { try? close() }   // allowed: a deinit cannot report; close() was the caller's to call and check

    func checkOpen() throws {
        if closed.load(ordering: .acquiring) {
            throw StorageError(.notOpen, "RocksDB database \"\(path)\" is closed")
        }
    }

    /// What the calling thread's reads see.
    func view() throws -> RocksDBView {
        try checkOpen()
        if scopes.isWriting, let transaction { return .transaction(transaction.batch) }
        if let snapshot = scopes.currentSnapshot { return .snapshot(snapshot) }
        return .latest
    }

    /// The open transaction's writes; the calling thread must be inside `write`.
    func batch() throws -> RocksDBPendingWrites {
        try checkOpen()
        guard !isReadOnly else {
            throw StorageError(.notWriteable, "RocksDB database \"\(path)\" was opened read-only")
        }
        guard scopes.isWriting, let transaction else {
            throw StorageError(.notInTransaction, "RocksDB database \"\(path)\": writes must happen "
                               + "inside write { … }")
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

    /// Whether the calling thread is inside this file's write transaction.
    package var isInTransaction: Bool { scopes.isWriting }

    /// Runs `body` as one write transaction; see `DataFile.write`.
    @discardableResult
    package func write<T>(_ body: () throws -> T) throws -> T {
        try checkOpen()
        guard !isReadOnly else {
            throw StorageError(.notWriteable, "RocksDB database \"\(path)\" was opened read-only")
        }
        if scopes.isWriting {
            _ = scopes.enterWrite()
            defer { _ = scopes.leaveWrite() }
            return try body()
        }
        try shared.lockWriter()
        let batch: RocksDBPendingWrites
        do {
            try checkOpen()   // close() may have run while this thread waited for the lock
            batch = RocksDBPendingWrites(path: path, expectedWrites: lastTransactionWrites)
        } catch {
            shared.unlockWriter()
            throw error
        }
        transaction = Transaction(batch: batch)
        _ = scopes.enterWrite()
        let result: T
        let event: CommitEvent
        do {
            result = try body()
            lastTransactionWrites = batch.count
            event = try commit(batch)
        } catch {
            transaction = nil
            // Stores created by the aborted transaction are gone: relearn IDs lazily.
            catalog.withLock { state in
                state.keyStores.removeAll()
                state.byteStores.removeAll()
            }
            _ = scopes.leaveWrite()
            shared.unlockWriter()
            throw error
        }
        transaction = nil
        _ = scopes.leaveWrite()
        shared.unlockWriter()
        shared.notify(event)
        return result
    }

    private func commit(_ batch: RocksDBPendingWrites) throws -> CommitEvent {
        var changes: [CommitEvent.StoreChange] = []
        for (id, meta) in transaction?.stores ?? [:] where meta.touched {
            var value: [UInt8] = []
            RocksDBLayout.appendBigEndian(&value, meta.lastSequence)
            RocksDBLayout.appendBigEndian(&value, meta.initialPurgeCount + meta.purged)
            put(RocksDBLayout.metaKey(id), value, in: batch)
            changes.append(.init(store: meta.name, previousLastSequence: meta.initialLastSequence,
                                 lastSequence: meta.lastSequence, purged: meta.purged))
        }
        let writeBatch = try RocksDBBatchPool.take()
        defer { RocksDBBatchPool.giveBack(writeBatch) }
        try batch.fill(writeBatch)
        var error: UnsafeMutablePointer<CChar>?
        rocksdb_write(handle.db, handle.syncWriteOptions, writeBatch, &error)
        try RocksDBHandle.check(error, path: path, doing: "committing a transaction")
        return CommitEvent(path: path, changes: changes.sorted { $0.store < $1.store })
    }

    /// The open transaction's counters for store `id`, loaded on first use.
    func transactionMeta(_ id: UInt32, name: String) throws -> StoreMeta {
        if let meta = transaction?.stores[id] { return meta }
        let (last, purged) = try readMeta(id, view: .transaction(try batch()))
        let meta = StoreMeta(name: name, initialLastSequence: last, lastSequence: last, initialPurgeCount: purged)
        transaction?.stores[id] = meta
        return meta
    }

    func updateTransactionMeta(_ id: UInt32, _ meta: StoreMeta) {
        var meta = meta
        meta.touched = true
        transaction?.stores[id] = meta
    }

    /// Last sequence and purge count of store `id` as `view` sees them.
    func readMeta(_ id: UInt32, view: RocksDBView) throws -> (UInt64, UInt64) {
        if case .transaction = view, let meta = transaction?.stores[id] {
            return (meta.lastSequence, meta.initialPurgeCount + meta.purged)
        }
        let value = try handle.get(RocksDBLayout.metaKey(id), view: view) { bytes -> (UInt64, UInt64) in
            guard bytes.count == 16 else { throw RocksDBRecordCodec.damaged(path) }
            return (RocksDBLayout.readBigEndian(bytes, at: 0), RocksDBLayout.readBigEndian(bytes, at: 8))
        }
        return value ?? (0, 0)
    }

    // MARK: Snapshots

    /// Runs `body` reading through a RocksDB snapshot; see `DataFile.withReadSnapshot`.
    package func withReadSnapshot<T>(_ body: () throws -> T) throws -> T {
        try checkOpen()
        if scopes.isWriting || scopes.currentSnapshot != nil { return try body() }
        let snapshot = try RocksDBSnapshot(handle: handle)
        _ = scopes.bind(snapshot)
        defer {
            scopes.unbind()
            snapshot.release()
        }
        return try body()
    }

    // MARK: Observers

    /// Registers a commit observer; see `DataFile.addCommitObserver`.
    package func addCommitObserver(_ observer: @escaping @Sendable (CommitEvent) -> Void) -> CommitObserverToken {
        let token = shared.addObserver(observer)
        catalog.withLock { _ = $0.observerTokens.insert(token) }
        return token
    }

    /// Removes a commit observer.
    package func removeCommitObserver(_ token: CommitObserverToken) {
        shared.removeObserver(token)
        catalog.withLock { _ = $0.observerTokens.remove(token) }
    }

    // MARK: Maintenance

    /// Nothing to wait for: RocksDB's own flushes and compactions are not this seam's.
    package func waitForBackgroundWork() {}

    /// Compacts every level (drops deleted and overwritten values from disk).
    package func compact() throws {
        try checkOpen()
        guard !isReadOnly else {
            throw StorageError(.notWriteable, "RocksDB database \"\(path)\" was opened read-only")
        }
        rocksdb_compact_range(handle.db, nil, 0, nil, 0)
    }

    /// Closes this instance (the shared RocksDB handle closes with the last one).
    package func close() throws {
        if closed.load(ordering: .acquiring) { return }
        if scopes.isWriting {
            throw StorageError(.unsupported, "RocksDB database \"\(path)\" cannot close during a "
                               + "write transaction; finish the transaction first")
        }
        // Under the writer lock: another thread's transaction on this instance finishes first,
        // and a thread waiting to write re-checks `closed` once it has the lock.
        if !isReadOnly { try shared.lockWriter() }
        defer { if !isReadOnly { shared.unlockWriter() } }
        guard closed.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
        else { return }
        let tokens = catalog.withLock { state in
            defer { state = Catalog() }
            return state.observerTokens
        }
        shared.removeObservers(tokens)
        RocksDBEngine.releaseHandle(handle, shared: shared)
    }
}
