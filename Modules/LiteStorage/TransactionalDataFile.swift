/// A `DataFile` whose transaction skeleton is this module's: the write lock shared by every
/// instance on the path, the nested `write` that joins the outer one, commit or abort, commit
/// observers called after the lock is released, and read snapshots bound to their thread.
/// The engine supplies only the steps that differ (as LiteCore's `DataFile` subclasses do):
/// how a transaction begins, commits and aborts, and how a snapshot is taken and released.
///
/// The extension below implements `write`, `isInTransaction`, `withReadSnapshot` and the
/// observer registration of `DataFile` from these hooks.
package protocol TransactionalDataFile: DataFile {
    /// What the engine's read snapshot holds (a connection, a RocksDB snapshot).
    associatedtype Snapshot: AnyObject & Sendable

    /// The instance's lock, thread scopes, closed flag and observers.
    var coordinator: TransactionCoordinator<Snapshot> { get }

    /// Begins the engine's transaction; called holding the write lock, the instance open and
    /// writable. On a throw nothing has begun.
    func beginTransaction() throws
    /// Makes the transaction durable and returns what it changed; called holding the write
    /// lock after the body returned. On a throw ``abortTransaction()`` follows.
    func commitTransaction() throws -> CommitEvent
    /// Discards the transaction (the body or the commit threw); called holding the write lock.
    func abortTransaction()
    /// Called after a commit once the write lock is released, before the observers (SQLite
    /// ends its idle readers' kept read transactions here). Does nothing by default.
    func transactionDidCommit()

    /// Takes a snapshot of the committed data for ``DataFile/withReadSnapshot(_:)``.
    func beginReadSnapshot() throws -> Snapshot
    /// Releases a snapshot taken by ``beginReadSnapshot()``.
    func endReadSnapshot(_ snapshot: Snapshot)
}

extension TransactionalDataFile {
    /// Nothing to do after a commit.
    package func transactionDidCommit() {}

    /// Whether the calling thread is inside this instance's write transaction.
    package var isInTransaction: Bool { coordinator.scopes.isWriting }

    /// Runs `body` as one write transaction; see `DataFile.write`.
    @discardableResult
    package func write<T>(_ body: (borrowing WriteTransaction) throws -> T) throws -> T {
        let coordinator = self.coordinator
        let scopes = coordinator.scopes
        try coordinator.checkOpen()
        guard !isReadOnly else { throw coordinator.readOnlyError }
        if scopes.isWriting {
            _ = scopes.enterWrite()
            defer { _ = scopes.leaveWrite() }
            return try body(WriteTransaction(owner: coordinator))
        }
        let shared = coordinator.shared
        try shared.lockWriter()
        do {
            // close() may have run while this thread waited for the lock: it closes the engine
            // while holding that lock, so checking again here is enough.
            try coordinator.checkOpen()
            coordinator.countTransaction()
            try beginTransaction()
        } catch {
            shared.unlockWriter()
            throw error
        }
        _ = scopes.enterWrite()
        let result: T
        let event: CommitEvent
        do {
            result = try body(WriteTransaction(owner: coordinator))
            event = try commitTransaction()
        } catch {
            abortTransaction()
            _ = scopes.leaveWrite()
            shared.unlockWriter()
            throw error
        }
        _ = scopes.leaveWrite()
        shared.unlockWriter()
        transactionDidCommit()
        shared.notify(event)
        return result
    }

    /// Runs `body` with a consistent view of committed data; see `DataFile.withReadSnapshot`.
    /// Inside a transaction or a snapshot already, `body` keeps the view it has.
    package func withReadSnapshot<T>(_ body: () throws -> T) throws -> T {
        let scopes = coordinator.scopes
        try coordinator.checkOpen()
        if scopes.isWriting || scopes.currentSnapshot != nil { return try body() }
        let snapshot = try beginReadSnapshot()
        _ = scopes.bind(snapshot)
        defer {
            scopes.unbind()
            endReadSnapshot(snapshot)
        }
        return try body()
    }

    /// Registers a commit observer; see `DataFile.addCommitObserver`.
    package func addCommitObserver(_ observer: @escaping @Sendable (CommitEvent) -> Void) -> CommitObserverToken {
        coordinator.addObserver(observer)
    }

    /// Removes a commit observer.
    package func removeCommitObserver(_ token: CommitObserverToken) {
        coordinator.removeObserver(token)
    }
}
