import Synchronization
import LiteSupport

/// The engine-independent state of one open `DataFile` instance that the transaction skeleton
/// (``TransactionalDataFile``) works on: the path's shared write lock and observers, which
/// thread writes and which threads hold snapshots, whether the instance is closed, and the
/// observers it registered.
///
/// Each engine's data file holds one and reads its view through ``scopes``.
package final class TransactionCoordinator<Snapshot: AnyObject & Sendable>: Sendable {
    /// What every instance on the path shares (write lock, observers, engine state).
    package let shared: SharedFile
    /// Which thread writes and which threads read through a snapshot.
    package let scopes = ThreadScopes<Snapshot>()
    /// How the engine names the file in messages (`SQLite database "…/db.sqlite3"`).
    package let fileDescription: String
    private let closed = Atomic<Bool>(false)
    private let transactionCount = Atomic<UInt64>(0)
    private let observerTokens = Locked<Set<CommitObserverToken>>([])

    /// - Parameters:
    ///   - shared: the path's shared state, already retained by the engine.
    ///   - fileDescription: e.g. `SQLite database "…/db.sqlite3"`.
    package init(shared: SharedFile, fileDescription: String) {
        self.shared = shared
        self.fileDescription = fileDescription
    }

    /// Whether ``close(lockingWriter:_:)`` has run.
    package var isClosed: Bool { closed.load(ordering: .acquiring) }

    /// Throws `StorageError.closed` once the instance is closed.
    package func checkOpen() throws {
        if isClosed { throw StorageError(.notOpen, "\(fileDescription) is closed") }
    }

    /// The error for a write to a file opened read-only.
    package var readOnlyError: StorageError {
        StorageError(.notWriteable, "\(fileDescription) was opened read-only")
    }

    /// Which transaction of this instance is open (or last was): 1 for the first. Changed only
    /// by the thread that begins a transaction, under the write lock.
    package var transactionNumber: UInt64 { transactionCount.load(ordering: .acquiring) }

    func countTransaction() {
        transactionCount.add(1, ordering: .releasing)
    }

    /// Runs `body` holding the path's write lock (maintenance that must not overlap a commit),
    /// after checking the instance is still open once the lock is held.
    package func withWriterLock<T>(_ body: () throws -> T) throws -> T {
        try checkOpen()
        try shared.lockWriter()
        defer { shared.unlockWriter() }
        try checkOpen()
        return try body()
    }

    // MARK: Observers

    /// Registers a commit observer with the path, remembering it to remove at close.
    package func addObserver(_ observer: @escaping @Sendable (CommitEvent) -> Void) -> CommitObserverToken {
        let token = shared.addObserver(observer)
        observerTokens.withLock { _ = $0.insert(token) }
        return token
    }

    /// Removes an observer.
    package func removeObserver(_ token: CommitObserverToken) {
        shared.removeObserver(token)
        observerTokens.withLock { _ = $0.remove(token) }
    }

    // MARK: Close

    /// Marks the instance closed, removes its observers and then runs `engineClose` (which
    /// frees the engine's resources and releases ``shared``); does nothing when already closed.
    ///
    /// - Parameter lockingWriter: whether to wait for the write lock first (an instance that
    ///   can write): another thread's transaction finishes first, and a thread waiting to write
    ///   re-checks ``isClosed`` once it has the lock, so it never begins on closed resources.
    /// - Throws: `StorageError.unsupported` when the calling thread is inside this instance's
    ///   write transaction.
    package func close(lockingWriter: Bool, _ engineClose: () throws -> Void) throws {
        if isClosed { return }
        if scopes.isWriting {
            throw StorageError(.unsupported, "\(fileDescription) cannot close during a write "
                               + "transaction; finish the transaction first")
        }
        if lockingWriter { try shared.lockWriter() }
        defer { if lockingWriter { shared.unlockWriter() } }
        guard closed.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
        else { return }
        let tokens = observerTokens.withLock { tokens in
            defer { tokens.removeAll() }
            return tokens
        }
        shared.removeObservers(tokens)
        try engineClose()
    }
}
