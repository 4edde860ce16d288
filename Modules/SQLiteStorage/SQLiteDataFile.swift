import CSQLite
import LiteStorage
import Synchronization
import LiteSupport

/// A Couchbase Lite 2.x SQLite database file (`db.sqlite3`) opened through the storage seam.
///
/// One writer connection (used only by the thread inside `write`) and a pool of reader
/// connections; the file is in WAL mode, so readers see the last commit and never wait for the
/// writer. Across processes, a second writer waits up to 10 s (`busy_timeout`) for the first to
/// commit, then fails with `StorageError.busy`.
package final class SQLiteDataFile: TransactionalDataFile, @unchecked Sendable {
    // Unchecked: `transaction` belongs to the thread holding the writer
    // lock (decisions Storage-1, Storage-26); connections are used one thread at a time
    // (`SQLiteConnection`).
    /// Where the file is.
    package let path: String
    /// `SQLite`.
    package let engineName = SQLiteEngine.engineName
    /// Whether the file was opened read-only.
    package let isReadOnly: Bool

    /// The shared transaction skeleton's state (write lock, thread scopes, observers).
    package let coordinator: TransactionCoordinator<SQLiteSnapshot>
    var shared: SharedFile { coordinator.shared }
    var scopes: ThreadScopes<SQLiteSnapshot> { coordinator.scopes }
    let writer: SQLiteConnection?
    let pool: SQLiteConnectionPool
    let readerPools: SQLiteReaderPools
    /// Checkpoints the WAL off the writer's thread (read-write files only).
    let checkpointer: SQLiteCheckpointer?

    struct Schema {
        var keyStores: [String: SQLiteKeyStore] = [:]
        var byteStores: [String: SQLiteByteKeyStore] = [:]
        /// Committed knowledge of which key stores have the `expiration` column, valid while
        /// `SharedFile.schemaGeneration` equals `generation`.
        var expiration: [String: Bool] = [:]
        var generation: UInt64 = 0
        var sequenceIndexed: Set<String> = []
    }
    let schema = Locked(Schema())

    struct Transaction {
        /// Which transaction of this file this is (cursors made inside one check it is still open).
        let number: UInt64
        /// Per-store counters, by store name.
        var stores: [String: TransactionStoreCounters] = [:]
        var addedExpiration: Set<String> = []
        var changedSchema = false
    }
    // Invariant: only the thread that owns the transaction (scopes.isWriting) reads or writes it.
    var transaction: Transaction?
    let hasPurgeCount: Bool

    /// - Parameter firstReader: a connection set up as the pool's readers are, to reuse first.
    /// - Parameter encryption: the key the file is encrypted with (every connection needs it).
    init(path: String, readOnly: Bool, writer: SQLiteConnection?, hasPurgeCount: Bool,
         reader: (any RecordValueReader)? = nil, firstReader: SQLiteConnection? = nil,
         encryption: SQLiteEncryption? = nil) {
        self.path = path
        isReadOnly = readOnly
        self.writer = writer
        self.hasPurgeCount = hasPurgeCount
        pool = SQLiteConnectionPool(path: path, readOnly: readOnly, reader: reader, encryption: encryption)
        if let firstReader { pool.checkin(firstReader) }
        let shared = SharedFile.retain(path: path)
        coordinator = TransactionCoordinator(shared: shared, fileDescription: "SQLite database \"\(path)\"")
        readerPools = SQLiteReaderPools.of(shared)
        readerPools.add(pool)
        if let writer, !readOnly {
            let checkpointer = SQLiteCheckpointer(path: path, encryption: encryption)
            checkpointer.attach(to: writer)
            self.checkpointer = checkpointer
        } else {
            checkpointer = nil
        }
    }

    deinit { try? close() }   // allowed: a deinit cannot report; close() was the caller's to call and check

    // MARK: Connections

    func checkOpen() throws { try coordinator.checkOpen() }

    /// Runs `body` on the connection that gives this thread its view (transaction, snapshot,
    /// or latest commit).
    func withReader<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        try checkOpen()
        if let writer, scopes.isWriting { return try body(writer) }
        if let snapshot = scopes.currentSnapshot { return try body(snapshot.connection) }
        let connection = try pool.checkoutForReading()
        defer { pool.checkin(connection) }
        return try body(connection)
    }

    /// A connection for a cursor, how to give it back when the cursor closes, and a check to
    /// run before each step: a cursor made inside a transaction or a read snapshot shares that
    /// scope's connection, which after the scope ends belongs to someone else (connections are
    /// not thread-safe), so using the cursor then is an error, never undefined behaviour.
    func cursorConnection() throws -> (connection: SQLiteConnection, release: () -> Void, check: () throws -> Void) {
        try checkOpen()
        let path = self.path
        if let writer, scopes.isWriting {
            let number = transaction?.number
            return (writer, {}, { [weak self] in
                guard let self, self.scopes.isWriting, self.transaction?.number == number else {
                    throw StorageError(.unsupported, "SQLite database \"\(path)\": a cursor was used after the write "
                                       + "transaction it was made in ended; finish with a cursor inside its transaction")
                }
            })
        }
        if let snapshot = scopes.currentSnapshot {
            return (snapshot.connection, {}, { [weak self] in
                guard let self, self.scopes.currentSnapshot === snapshot else {
                    throw StorageError(.unsupported, "SQLite database \"\(path)\": a cursor was used after the read "
                                       + "snapshot it was made in ended (or on another thread)")
                }
            })
        }
        let connection = try pool.checkout()
        let pool = self.pool
        return (connection, { pool.checkin(connection) }, { [weak self] in try self?.checkOpen() })
    }

    /// Runs `body` on the writer connection inside `txn`, this file's open transaction.
    func withWriter<T>(_ txn: borrowing WriteTransaction, _ body: (SQLiteConnection) throws -> T) throws -> T {
        try checkOpen()
        guard let writer else { throw coordinator.readOnlyError }
        try txn.check(belongsTo: coordinator)
        return try body(writer)
    }

    // MARK: Transactions

    /// `BEGIN IMMEDIATE` on the writer connection; see `TransactionalDataFile.beginTransaction`.
    package func beginTransaction() throws {
        guard let writer else { throw coordinator.readOnlyError }
        try writer.execute("BEGIN IMMEDIATE")
        transaction = Transaction(number: coordinator.transactionNumber)
    }

    /// Writes the touched stores' counters to `kvmeta` and commits.
    package func commitTransaction() throws -> CommitEvent {
        guard let writer else { throw coordinator.readOnlyError }
        return try commit(writer)
    }

    /// Rolls back and forgets what the transaction taught about the schema.
    package func abortTransaction() {
        if let writer { abort(writer) }
    }

    /// Ends idle readers' kept read transactions, so none holds back the checkpoint.
    package func transactionDidCommit() {
        readerPools.endKeptReads()
    }

    private func commit(_ writer: SQLiteConnection) throws -> CommitEvent {
        let stores = transaction?.stores ?? [:]
        var changes: [CommitEvent.StoreChange] = []
        for (name, meta) in stores.sorted(by: { $0.key < $1.key }) where meta.touched {
            if hasPurgeCount {
                let statement = try writer.cached("""
                    INSERT INTO kvmeta (name, lastSeq, purgeCnt) VALUES (?, ?, ?) \
                    ON CONFLICT(name) DO UPDATE SET lastSeq=excluded.lastSeq, purgeCnt=excluded.purgeCnt
                    """)
                statement.bind(1, name)
                statement.bind(2, meta.lastSequence)
                statement.bind(3, meta.purgeCount)
                try statement.run()
            } else {
                let statement = try writer.cached("""
                    INSERT INTO kvmeta (name, lastSeq) VALUES (?, ?) \
                    ON CONFLICT(name) DO UPDATE SET lastSeq=excluded.lastSeq
                    """)
                statement.bind(1, name)
                statement.bind(2, meta.lastSequence)
                try statement.run()
            }
            changes.append(meta.change)
        }
        try writer.execute("COMMIT")
        let added = transaction?.addedExpiration ?? []
        if transaction?.changedSchema == true || !added.isEmpty {
            shared.schemaGeneration.add(1, ordering: .releasing)
        }
        transaction = nil
        if !added.isEmpty {
            schema.withLock { state in
                for store in added { state.expiration[store] = true }
            }
        }
        return CommitEvent(path: path, changes: changes)
    }

    private func abort(_ writer: SQLiteConnection) {
        try? writer.execute("ROLLBACK")   // allowed: the failure that aborts is the one reported; SQLite rolls back anyway when the statement fails
        transaction = nil
        // Tables, columns and indexes made by the aborted transaction are gone: relearn lazily.
        schema.withLock { state in
            state.keyStores.removeAll()
            state.byteStores.removeAll()
            state.expiration.removeAll()
            state.sequenceIndexed.removeAll()
        }
    }

    /// The open transaction's counters for `store` (read from `kvmeta` until it changes them).
    func transactionMeta(_ store: String, _ writer: SQLiteConnection) throws -> TransactionStoreCounters {
        try .current(store, in: transaction?.stores, name: store) { try readMeta(store, writer) }
    }

    /// Keeps the transaction's changed counters for `store`, written at commit.
    func updateTransactionMeta(_ store: String, _ meta: TransactionStoreCounters) {
        transaction?.stores[store] = meta.markedTouched
    }

    /// Committed (or this transaction's) last sequence and purge count of `store`.
    func readMeta(_ store: String, _ connection: SQLiteConnection) throws -> (UInt64, UInt64) {
        if connection === writer, scopes.isWriting, let meta = transaction?.stores[store] {
            return (meta.lastSequence, meta.purgeCount)
        }
        let statement = try connection.cached(hasPurgeCount
            ? "SELECT lastSeq, purgeCnt FROM kvmeta WHERE name=?"
            : "SELECT lastSeq, 0 FROM kvmeta WHERE name=?")
        defer { statement.reset() }
        statement.bind(1, store)
        guard try statement.step() else { return (0, 0) }
        return (statement.uint64(0), statement.uint64(1))
    }

    // MARK: Snapshots

    /// A reader connection inside a read transaction that has taken its snapshot.
    package func beginReadSnapshot() throws -> SQLiteSnapshot {
        // An idle reader's kept read transaction (Storage-14) that still sees the latest commit
        // is such a snapshot already: beginning and ending one of our own was a tenth of a
        // query that reads ten rows through an index (Storage-37).
        let connection = try pool.checkoutForReading()
        if connection.keptReadHeader != nil, sqlite3_get_autocommit(connection.handle) == 0 {
            do {
                // A transaction begun but not yet read takes its snapshot now, as below.
                if sqlite3_txn_state(connection.handle, "main") == SQLITE_TXN_NONE {
                    _ = try connection.integer("PRAGMA schema_version")
                }
                return SQLiteSnapshot(connection: connection, kept: true)
            } catch {
                connection.endKeptRead()
                pool.checkin(connection)
                throw error
            }
        }
        connection.endKeptRead()
        do {
            // Prepared once per connection: parsing the text each time was a tenth of a short query.
            try connection.cached("BEGIN").run()
            // A deferred transaction takes its snapshot at the first read.
            _ = try connection.integer("PRAGMA schema_version")
        } catch {
            try? connection.execute("ROLLBACK")   // allowed: ends a read-only snapshot whose failure is rethrown below
            pool.checkin(connection)
            throw error
        }
        return SQLiteSnapshot(connection: connection, kept: false)
    }

    /// Ends the snapshot's read transaction and gives its connection back to the pool. A kept
    /// read transaction stays open with its connection, as the pool keeps it for the next read
    /// (ended at the next commit in this process, or when it no longer sees the latest one).
    package func endReadSnapshot(_ snapshot: SQLiteSnapshot) {
        if !snapshot.kept {
            try? snapshot.connection.cached("ROLLBACK").run()   // allowed: ends a read-only snapshot; nothing was written to lose
        }
        pool.checkin(snapshot.connection)
    }

    // MARK: Maintenance

    /// Waits until a checkpoint queued by earlier commits has run; see `DataFile.waitForBackgroundWork`.
    package func waitForBackgroundWork() {
        checkpointer?.waitUntilIdle()
    }

    /// Frees unused pages (`incremental_vacuum`) and folds the WAL into the file.
    package func compact() throws {
        try checkOpen()
        guard let writer else { throw coordinator.readOnlyError }
        try coordinator.withWriterLock {
            try writer.execute("PRAGMA incremental_vacuum")
            // Idle readers' kept read transactions would keep the checkpoint from emptying the WAL.
            readerPools.endKeptReads()
            try writer.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        }
    }

    /// Closes every connection; see `DataFile.close`.
    package func close() throws {
        try coordinator.close(lockingWriter: writer != nil) {
            schema.withLock { $0 = Schema() }
            readerPools.remove(pool)
            if let writer { checkpointer?.detach(from: writer) }
            checkpointer?.close()
            writer?.close()
            pool.closeAll()
            shared.release()
        }
    }
}
