/// One open database file (or folder) of some engine: its key stores, byte-key stores and the
/// transaction that writes them.
///
/// Concurrency: one write transaction at a time per file — a second writer (another thread, or
/// another `DataFile` on the same path in this process) waits for the first to finish. Readers
/// never wait for writers and see only committed data, except the writing thread, which sees its
/// own writes. Across processes the engine decides (see each engine's documentation).
///
/// ```swift
/// let store = try file.keyStore("default")
/// let sequence = try file.write { txn in
///     try store.set(Record(key: "doc", body: bytes), ifSequence: 0, in: txn)
/// }
/// ```
package protocol DataFile: AnyObject, Sendable {
    /// Where the file (or folder) is.
    var path: String { get }
    /// The engine's name (`SQLite`, `RocksDB`).
    var engineName: String { get }
    /// Whether the file was opened read-only.
    var isReadOnly: Bool { get }

    /// The key store with this name, created (in its own transaction, or the current one) when
    /// missing. On a read-only file a missing store is `StorageError.notFound`.
    func keyStore(_ name: String) throws -> any KeyStore
    /// The names of the existing key stores, sorted.
    func keyStoreNames() throws -> [String]
    /// Deletes a key store and everything in it.
    func deleteKeyStore(_ name: String) throws

    /// The byte-key store with this name, created when missing.
    func byteKeyStore(_ name: String) throws -> any ByteKeyStore
    /// The byte-key store with this name for an index whose entries' values are keys of key
    /// store `keyStore`, created when missing: an engine may link each new entry to its record
    /// so that ``KeyStore/visitRecords(keyedBy:in:descending:_:)`` finds it without a key lookup.
    /// An existing store is returned as it is.
    func indexStore(_ name: String, over keyStore: String) throws -> any ByteKeyStore
    /// The names of the existing byte-key stores, sorted.
    func byteKeyStoreNames() throws -> [String]
    /// Deletes a byte-key store and everything in it.
    func deleteByteKeyStore(_ name: String) throws

    /// Runs `body` as one write transaction: committed when it returns, discarded when it throws.
    /// `body` is lent the transaction, which every mutating store call takes.
    ///
    /// A `write` inside a `write` on the same thread joins the outer transaction (an error
    /// thrown inside aborts the whole outer transaction when it propagates out of it).
    @discardableResult
    func write<T>(_ body: (borrowing WriteTransaction) throws -> T) throws -> T
    /// Whether the calling thread is inside a write transaction of this file.
    var isInTransaction: Bool { get }

    /// Runs `body` with a consistent view: every read on this thread inside sees the data
    /// committed when the snapshot began, whatever other writers commit meanwhile.
    func withReadSnapshot<T>(_ body: () throws -> T) throws -> T

    /// Registers `observer`, called after every commit on this path in this process (from any
    /// `DataFile` instance), on the committing thread, after the write lock is released.
    func addCommitObserver(_ observer: @escaping @Sendable (CommitEvent) -> Void) -> CommitObserverToken
    /// Removes an observer.
    func removeCommitObserver(_ token: CommitObserverToken)

    /// Waits until work the engine does in the background after commits (SQLite's checkpoint
    /// of the WAL) has finished; nothing is lost without it. For measurements that must not
    /// see one operation's background work land in the next one's time.
    func waitForBackgroundWork()

    /// Reclaims unused space.
    func compact() throws
    /// The indexes the file declares that are not this project's own (see ``ForeignIndex``):
    /// LiteCore's, and those carried from such a file by a conversion. Sorted by name.
    func foreignIndexes() throws -> [ForeignIndex]
    /// Checks the file's own structures (pages, indexes, block checksums) and returns each
    /// problem found as a sentence; an empty array means the engine found nothing wrong.
    func checkIntegrity() throws -> [String]
    /// Closes the file; later calls throw `StorageError.closed`. Closing twice does nothing.
    func close() throws
}
