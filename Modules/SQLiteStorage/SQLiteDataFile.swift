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
package final class SQLiteDataFile: DataFile, @unchecked Sendable {
    // Unchecked: `transaction` and `transactionCount` belong to the thread holding the writer
    // lock (decision Storage-1); connections are used one thread at a time (`SQLiteConnection`).
    /// Where the file is.
    package let path: String
    /// `SQLite`.
    package let engineName = SQLiteEngine.engineName
    /// Whether the file was opened read-only.
    package let isReadOnly: Bool

    let shared: SharedFile
    let writer: SQLiteConnection?
    let pool: SQLiteConnectionPool
    let readerPools: SQLiteReaderPools
    /// Checkpoints the WAL off the writer's thread (read-write files only).
    let checkpointer: SQLiteCheckpointer?
    let scopes = ThreadScopes<SQLiteSnapshot>()
    private let closed = Atomic<Bool>(false)

    struct Schema {
        var keyStores: [String: SQLiteKeyStore] = [:]
        var byteStores: [String: SQLiteByteKeyStore] = [:]
        /// Committed knowledge of which key stores have the `expiration` column, valid while
        /// `SharedFile.schemaGeneration` equals `generation`.
        var expiration: [String: Bool] = [:]
        var generation: UInt64 = 0
        var sequenceIndexed: Set<String> = []
        var observerTokens: Set<CommitObserverToken> = []
    }
    let schema = Locked(Schema())

    /// Per-store counters of the open transaction; touched only by the writing thread.
    struct StoreMeta {
        var initialLastSequence: UInt64
        var lastSequence: UInt64
        var purged: UInt64 = 0
        var initialPurgeCount: UInt64
        var touched = false
    }
    struct Transaction {
        /// Which transaction of this file this is (cursors made inside one check it is still open).
        let number: UInt64
        var stores: [String: StoreMeta] = [:]
        var addedExpiration: Set<String> = []
        var changedSchema = false
    }
    // Invariant: only the thread that owns the transaction (scopes.isWriting) reads or writes it.
    var transaction: Transaction?
    // Invariant: only changed by the thread that begins a transaction, under the writer lock.
    private var transactionCount: UInt64 = 0
    let hasPurgeCount: Bool

    /// - Parameter firstReader: a connection set up as the pool's readers are, to reuse first.
    init(path: String, readOnly: Bool, writer: SQLiteConnection?, hasPurgeCount: Bool,
         reader: (any RecordValueReader)? = nil, firstReader: SQLiteConnection? = nil) {
        self.path = path
        isReadOnly = readOnly
        self.writer = writer
        self.hasPurgeCount = hasPurgeCount
        pool = SQLiteConnectionPool(path: path, readOnly: readOnly, reader: reader)
        if let firstReader { pool.checkin(firstReader) }
        shared = SharedFile.retain(path: path)
        readerPools = SQLiteReaderPools.of(shared)
        readerPools.add(pool)
        if let writer, !readOnly {
            let checkpointer = SQLiteCheckpointer(path: path)
            checkpointer.attach(to: writer)
            self.checkpointer = checkpointer
        } else {
            checkpointer = nil
        }
    }

    deinit { try? close() }   // allowed: a deinit cannot report; close() was the caller's to call and check

    // MARK: Connections

    func checkOpen() throws {
        if closed.load(ordering: .acquiring) {
            throw StorageError(.notOpen, "SQLite database \"\(path)\" is closed")
        }
    }

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

    /// Runs `body` on the writer connection; the calling thread must be inside `write`.
    func withWriter<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        try checkOpen()
        guard let writer else {
            throw StorageError(.notWriteable, "SQLite database \"\(path)\" was opened read-only")
        }
        guard scopes.isWriting else {
            throw StorageError(.notInTransaction, "SQLite database \"\(path)\": writes must happen "
                               + "inside write { … }")
        }
        return try body(writer)
    }

    // MARK: Transactions

    /// Whether the calling thread is inside this file's write transaction.
    package var isInTransaction: Bool { scopes.isWriting }

    /// Runs `body` as one write transaction; see `DataFile.write`.
    @discardableResult
    package func write<T>(_ body: () throws -> T) throws -> T {
        try checkOpen()
        guard let writer, !isReadOnly else {
            throw StorageError(.notWriteable, "SQLite database \"\(path)\" was opened read-only")
        }
        if scopes.isWriting {
            _ = scopes.enterWrite()
            defer { _ = scopes.leaveWrite() }
            return try body()
        }
        try shared.lockWriter()
        do {
            // close() may have run while this thread waited for the lock: it closes the writer
            // connection while holding that lock, so checking again here is enough.
            try checkOpen()
            try writer.execute("BEGIN IMMEDIATE")
        } catch {
            shared.unlockWriter()
            throw error
        }
        _ = scopes.enterWrite()
        transactionCount += 1
        transaction = Transaction(number: transactionCount)
        let result: T
        let event: CommitEvent
        do {
            result = try body()
            event = try commit(writer)
        } catch {
            abort(writer)
            _ = scopes.leaveWrite()
            shared.unlockWriter()
            throw error
        }
        _ = scopes.leaveWrite()
        shared.unlockWriter()
        readerPools.endKeptReads()
        shared.notify(event)
        return result
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
                statement.bind(3, meta.initialPurgeCount + meta.purged)
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
            changes.append(.init(store: name, previousLastSequence: meta.initialLastSequence,
                                 lastSequence: meta.lastSequence, purged: meta.purged))
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

    /// The open transaction's counters for `store`, loaded from `kvmeta` on first use.
    func transactionMeta(_ store: String, _ writer: SQLiteConnection) throws -> StoreMeta {
        if let meta = transaction?.stores[store] { return meta }
        let (lastSequence, purgeCount) = try readMeta(store, writer)
        let meta = StoreMeta(initialLastSequence: lastSequence, lastSequence: lastSequence,
                             initialPurgeCount: purgeCount)
        transaction?.stores[store] = meta
        return meta
    }

    func updateTransactionMeta(_ store: String, _ meta: StoreMeta) {
        var meta = meta
        meta.touched = true
        transaction?.stores[store] = meta
    }

    /// Committed (or this transaction's) last sequence and purge count of `store`.
    func readMeta(_ store: String, _ connection: SQLiteConnection) throws -> (UInt64, UInt64) {
        if connection === writer, scopes.isWriting, let meta = transaction?.stores[store] {
            return (meta.lastSequence, meta.initialPurgeCount + meta.purged)
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

    /// Runs `body` with a consistent view of committed data; see `DataFile.withReadSnapshot`.
    package func withReadSnapshot<T>(_ body: () throws -> T) throws -> T {
        try checkOpen()
        if scopes.isWriting || scopes.currentSnapshot != nil { return try body() }
        let connection = try pool.checkout()
        do {
            try connection.execute("BEGIN")
            // A deferred transaction takes its snapshot at the first read.
            _ = try connection.integer("SELECT count(*) FROM sqlite_master")
        } catch {
            try? connection.execute("ROLLBACK")   // allowed: ends a read-only snapshot whose failure is rethrown below
            pool.checkin(connection)
            throw error
        }
        _ = scopes.bind(SQLiteSnapshot(connection: connection))
        defer {
            scopes.unbind()
            try? connection.execute("ROLLBACK")   // allowed: ends a read-only snapshot; nothing was written to lose
            pool.checkin(connection)
        }
        return try body()
    }

    // MARK: Observers

    /// Registers a commit observer; see `DataFile.addCommitObserver`.
    package func addCommitObserver(_ observer: @escaping @Sendable (CommitEvent) -> Void) -> CommitObserverToken {
        let token = shared.addObserver(observer)
        schema.withLock { _ = $0.observerTokens.insert(token) }
        return token
    }

    /// Removes a commit observer.
    package func removeCommitObserver(_ token: CommitObserverToken) {
        shared.removeObserver(token)
        schema.withLock { _ = $0.observerTokens.remove(token) }
    }

    // MARK: Maintenance

    /// Waits until a checkpoint queued by earlier commits has run; see `DataFile.waitForBackgroundWork`.
    package func waitForBackgroundWork() {
        checkpointer?.waitUntilIdle()
    }

    /// Frees unused pages (`incremental_vacuum`) and folds the WAL into the file.
    package func compact() throws {
        try checkOpen()
        guard let writer else {
            throw StorageError(.notWriteable, "SQLite database \"\(path)\" was opened read-only")
        }
        try shared.lockWriter()
        defer { shared.unlockWriter() }
        try checkOpen()
        try writer.execute("PRAGMA incremental_vacuum")
        // Idle readers' kept read transactions would keep the checkpoint from emptying the WAL.
        readerPools.endKeptReads()
        try writer.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    }

    /// Closes every connection; see `DataFile.close`.
    package func close() throws {
        if closed.load(ordering: .acquiring) { return }
        if scopes.isWriting {
            throw StorageError(.unsupported, "SQLite database \"\(path)\" cannot close during a "
                               + "write transaction; finish the transaction first")
        }
        // Under the writer lock: another thread's transaction finishes first, and a thread of
        // this instance waiting to write re-checks `closed` after it gets the lock, so it never
        // begins on the closed connection.
        if writer != nil { try shared.lockWriter() }
        defer { if writer != nil { shared.unlockWriter() } }
        guard closed.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
        else { return }
        let tokens = schema.withLock { state in
            defer { state = Schema() }
            return state.observerTokens
        }
        shared.removeObservers(tokens)
        readerPools.remove(pool)
        if let writer { checkpointer?.detach(from: writer) }
        checkpointer?.close()
        writer?.close()
        pool.closeAll()
        shared.release()
    }
}
