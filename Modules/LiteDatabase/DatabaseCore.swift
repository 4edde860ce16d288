import BlobStore
import Dispatch
import Fleece
import FoundationEssentials
import LiteStorage
import LiteSupport

/// An open database: its data file, the documents and info stores, shared keys, and the
/// transaction every change goes through. Thread-safe; the public `Database` wraps one.
///
/// ```swift
/// let core = try DatabaseCore(bundle: DatabaseBundle(name: "app", directory: dir),
///                             registry: registry, engineName: nil)
/// let revision = try core.saveDocument(id: "doc", base: nil) { $0.beginDictionary(); … }
/// ```
package final class DatabaseCore: Sendable {
    /// Key store names LiteCore uses.
    package enum StoreNames {
        /// The documents.
        package static let documents = "default"
        /// Database metadata (UUIDs, shared keys, settings).
        package static let info = "info"
        /// The local copies of replication checkpoints.
        package static let checkpoints = "checkpoints"
        /// Checkpoints stored on behalf of remote peers.
        package static let peerCheckpoints = "peerCheckpoints"
    }

    /// Keys of records in the `info` store (LiteCore's spelling).
    package enum InfoKeys {
        /// Versioning scheme: 8 bytes, 0 = revision trees.
        package static let versioning = "versioning"
        /// The public UUID (16 bytes).
        package static let publicUUID = "publicUUID"
        /// The private UUID (16 bytes).
        package static let privateUUID = "privateUUID"
        /// The private UUID before the last copy.
        package static let previousPrivateUUID = "previousPrivateUUID"
        /// The shared-key table (a Fleece array of strings).
        package static let sharedKeys = "SharedKeys"
        /// How deep revision trees grow (8 bytes big-endian).
        package static let maxRevTreeDepth = "maxRevTreeDepth"
    }

    /// Revision trees are pruned to this depth unless the database says otherwise.
    package static let defaultMaxRevTreeDepth = 20

    /// Where the database lives.
    package let bundle: DatabaseBundle
    /// The engine the database's files are in.
    package let engine: any StorageEngine
    /// The open data file.
    package let dataFile: any DataFile
    /// The documents.
    package let documents: any KeyStore
    /// Database metadata (UUIDs, shared keys, settings).
    package let info: any KeyStore
    /// The key table every document body is encoded with.
    package let sharedKeys: SharedKeys
    /// The key table with what is known of its persisted copy.
    let persistedKeys: PersistedSharedKeys

    private struct State {
        var isOpen = true
        var pendingChanges: [String] = []
        var expirationTimer: ExpirationTimer?
        /// `maxRevTreeDepth` as last read or set (it is read on every save).
        var maxRevTreeDepth: Int?
        /// How long the expiration timer waits after a failure (0 after a success).
        var expirationRetryDelay: Int64 = 0
    }
    private let state = Locked(State())
    let notifier: ChangeNotifier
    let indexers: DocumentIndexers
    let writer: SerialWriter
    let encoders: EncoderPool
    /// The database's blob store (`Attachments/` in the bundle).
    package let blobStore: BlobStore
    /// The shared lock on the bundle folder, held until `close()`.
    private let bundleLock: BundleLock
    let housekeepingQueue = DispatchQueue(label: "LiteDatabase.housekeeping")

    /// Opens the database in `bundle`, creating it when `create` is set and it does not exist.
    ///
    /// - Parameter engineName: the engine a new database uses (default: the registry's first);
    ///   for an existing database, it must be nil or the engine its files are in.
    /// - Throws: `DatabaseError` — `.notFound` when missing and not creating, `.databaseTooOld`
    ///   for a 1.x database (the upgrader handles those), `.unsupported` when `engineName`
    ///   differs from the files' engine, and what the engine reports for unreadable files.
    /// - Parameter encryptionKey: the key the data file is (or is created) encrypted with.
    package init(bundle: DatabaseBundle, registry: StorageEngineRegistry, engineName: String?,
                 create: Bool = true, readOnly: Bool = false, encryptionKey: AES256Key? = nil) throws {
        self.bundle = bundle
        blobStore = BlobStore(directory: URL(fileURLWithPath: bundle.attachmentsPath, isDirectory: true),
                              encryptionKey: encryptionKey)
        let bundlePath = bundle.path
        let requested: (any StorageEngine)?
        if let engineName {
            guard let engine = registry.engine(named: engineName) else {
                throw DatabaseError(.invalidParameter, "unknown storage engine \"\(engineName)\"; known: "
                                    + registry.engines.map(\.name).joined(separator: ", "))
            }
            requested = engine
        } else {
            requested = nil
        }
        // Held while open: a conversion in another process (or thread) waits for it, and this
        // open waits for a running conversion before it looks at which engine's files are there.
        if FileManager.default.fileExists(atPath: bundlePath) {
            bundleLock = try BundleLock.shared(bundlePath: bundlePath)
        } else {
            guard create, !readOnly else {
                throw DatabaseError(.notFound, "no database \"\(bundle.name)\" at \(bundlePath)")
            }
            do {
                try FileManager.default.createDirectory(atPath: bundlePath, withIntermediateDirectories: true)
            } catch {
                throw DatabaseError(.cantOpenFile, "cannot create database folder \(bundlePath)", underlying: error)
            }
            bundleLock = try BundleLock.shared(bundlePath: bundlePath)
        }
        let existing = registry.enginesWithFiles(inBundle: bundlePath)
        let engine: any StorageEngine
        if let found = existing.first {
            if existing.count > 1 {
                throw DatabaseError(.wrongFormat, "database \"\(bundle.name)\" at \(bundlePath) holds files of "
                                    + "several engines (\(existing.map(\.name).joined(separator: ", "))); remove the stale one")
            }
            if let requested, requested.name != found.name {
                throw DatabaseError(.unsupported, "database \"\(bundle.name)\" is stored with \(found.name), "
                                    + "but the configuration asks for \(requested.name); convert it first "
                                    + "(cblite-convert) or leave the engine unset")
            }
            engine = found
        } else {
            guard create, !readOnly else {
                throw DatabaseError(.notFound, "no database \"\(bundle.name)\" at \(bundlePath)")
            }
            guard let chosen = requested ?? registry.engines.first else {
                throw DatabaseError(.unsupported, "no storage engine is registered")
            }
            engine = chosen
        }
        self.engine = engine
        let path = engine.dataFilePath(inBundle: bundlePath)
        // The engine's SQL functions over documents (indexes in files Couchbase Lite wrote
        // evaluate them on every write) read bodies through this.
        let valueReader = DocumentValueReader()
        let file = try DatabaseError.mapping("opening database \"\(bundle.name)\"") {
            try engine.open(at: path, options: DataFileOptions(create: create && !readOnly, readOnly: readOnly,
                                                               valueReader: valueReader, encryptionKey: encryptionKey))
        }
        dataFile = file
        do {
            documents = try DatabaseError.mapping("opening the documents of \"\(bundle.name)\"") {
                try file.keyStore(StoreNames.documents)
            }
            info = try DatabaseError.mapping("opening the info store of \"\(bundle.name)\"") {
                try file.keyStore(StoreNames.info)
            }
            let table = try SharedKeysRegistry.shared.table(forPath: path) {
                try DatabaseError.mapping("reading the shared-key table of \"\(bundle.name)\"") {
                    try PersistedSharedKeys(info: file.keyStore(StoreNames.info))
                }
            }
            persistedKeys = table
            sharedKeys = table.keys
            valueReader.attach(table.keys)
        } catch {
            try? file.close()  // allowed: the open failed; its error is thrown
            throw error
        }
        notifier = ChangeNotifier.forPath(path)
        indexers = DocumentIndexers.forPath(path)
        writer = SerialWriter.forPath(path)
        encoders = EncoderPool(sharedKeys: sharedKeys)
        persistedKeys.attach(self, info: info)
        if !readOnly {
            do {
                try ensureInfoRecords()
            } catch {
                SharedKeysRegistry.shared.release(path: path)
                try? file.close()  // allowed: the open failed; its error is thrown
                throw error
            }
        }
    }

    /// Writes the UUIDs and the versioning record a new database needs.
    private func ensureInfoRecords() throws {
        guard try info.get(InfoKeys.privateUUID, content: .metaOnly) == nil else { return }
        try inTransaction { txn in
            if try info.get(InfoKeys.versioning, content: .metaOnly) == nil {
                try info.set(Record(key: InfoKeys.versioning, body: [UInt8](repeating: 0, count: 8)), ifSequence: nil, in: txn)
            }
            for key in [InfoKeys.publicUUID, InfoKeys.privateUUID]
            where try info.get(key, content: .metaOnly) == nil {
                try info.set(Record(key: key, body: Self.randomUUID()), ifSequence: nil, in: txn)
            }
        }
    }

    /// Gives the database new public and private UUIDs (after a copy), keeping the old private
    /// one as `previousPrivateUUID` so replication checkpoints can still be found.
    package func regenerateUUIDs() throws {
        try inTransaction { txn in
            if let old = try info.get(InfoKeys.privateUUID) {
                try info.set(Record(key: InfoKeys.previousPrivateUUID, body: old.body), ifSequence: nil, in: txn)
            }
            try info.set(Record(key: InfoKeys.privateUUID, body: Self.randomUUID()), ifSequence: nil, in: txn)
            try info.set(Record(key: InfoKeys.publicUUID, body: Self.randomUUID()), ifSequence: nil, in: txn)
        }
    }

    /// 16 random bytes, as LiteCore makes database UUIDs.
    package static func randomUUID() -> [UInt8] {
        withUnsafeBytes(of: UUID().uuid) { Array($0) }
    }

    /// Whether `close()` has not been called.
    package var isOpen: Bool { state.withLock { $0.isOpen } }

    /// Throws `.notOpen` once the database is closed.
    package func checkOpen() throws {
        guard isOpen else {
            throw DatabaseError(.notOpen, "database \"\(bundle.name)\" is closed; open it again to use it")
        }
    }

    /// The database's public UUID (16 bytes).
    package func publicUUID() throws -> [UInt8] {
        try DatabaseError.mapping("reading the public UUID") { try info.get(InfoKeys.publicUUID)?.body } ?? []
    }

    /// The database's private UUID (16 bytes).
    package func privateUUID() throws -> [UInt8] {
        try DatabaseError.mapping("reading the private UUID") { try info.get(InfoKeys.privateUUID)?.body } ?? []
    }

    /// How deep revision trees may grow before old revisions are pruned.
    package func maxRevTreeDepth() throws -> Int {
        if let cached = state.withLock({ $0.maxRevTreeDepth }) { return cached }
        let depth = try readMaxRevTreeDepth()
        state.withLock { $0.maxRevTreeDepth = depth }
        return depth
    }

    private func readMaxRevTreeDepth() throws -> Int {
        guard let record = try DatabaseError.mapping("reading maxRevTreeDepth", { try info.get(InfoKeys.maxRevTreeDepth) }),
              record.body.count == 8 else { return Self.defaultMaxRevTreeDepth }
        let value = record.body.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return value == 0 ? Self.defaultMaxRevTreeDepth : Int(clamping: value)
    }

    /// Sets how deep revision trees may grow (stored as LiteCore does: 8 bytes big-endian).
    package func setMaxRevTreeDepth(_ depth: Int) throws {
        guard depth > 0 else { throw DatabaseError(.invalidParameter, "maxRevTreeDepth must be at least 1") }
        let body = withUnsafeBytes(of: UInt64(depth).bigEndian) { Array($0) }
        try inTransaction { txn in _ = try info.set(Record(key: InfoKeys.maxRevTreeDepth, body: body), ifSequence: nil, in: txn) }
        state.withLock { $0.maxRevTreeDepth = depth }
    }

    /// Runs `body` in one write transaction; joins the caller's transaction when there is one.
    ///
    /// Shared keys added inside are persisted with the transaction, or forgotten when it fails;
    /// change notifications for the documents it touched are posted after it commits. Everything
    /// shared with other transactions (the key table, the list of changed documents) is read and
    /// changed only while the write lock is held.
    package func inTransaction<T>(_ body: (borrowing WriteTransaction) throws -> T) throws -> T {
        try checkOpen()
        if dataFile.isInTransaction { return try dataFile.write(body) }
        var changed: [String] = []
        var persistedSequence: UInt64?
        let result: T
        do {
            result = try DatabaseError.mapping("transaction on \"\(bundle.name)\"") {
                try dataFile.write { txn in
                    state.withLock { $0.pendingChanges.removeAll() }
                    let keyCountBefore = try persistedKeys.beginTransaction(info: info)
                    do {
                        // Indexes record the document store's state they reflect (catch-up on open).
                        let storeBefore = indexers.isEmpty ? nil : try documentStoreState()
                        let value = try body(txn)
                        try notifyIndexersOfCommit(from: storeBefore, txn: txn)
                        let keyCount = sharedKeys.count
                        if keyCount != keyCountBefore {
                            let bytes = try sharedKeys.persistedBytes()
                            let sequence = try info.set(Record(key: InfoKeys.sharedKeys, body: bytes), ifSequence: nil, in: txn)
                            persistedKeys.didPersist(sequence: sequence, count: keyCount)
                            persistedSequence = sequence
                        }
                        changed = state.withLock { state in
                            defer { state.pendingChanges.removeAll() }
                            return state.pendingChanges
                        }
                        return value
                    } catch {
                        persistedKeys.abortTransaction(revertingTo: keyCountBefore)
                        state.withLock { $0.pendingChanges.removeAll() }
                        throw error
                    }
                }
            }
        } catch {
            // The commit itself may have failed after the lock was released: the next
            // transaction reloads the key table from the file before trusting it.
            persistedKeys.commitFailed()
            throw error
        }
        if let persistedSequence { persistedKeys.commitConfirmed(sequence: persistedSequence) }
        if !changed.isEmpty { notifier.post(changed) }
        return result
    }

    /// Records that a document changed in the current transaction (posted after commit).
    func noteChanged(_ documentID: String) {
        state.withLock { $0.pendingChanges.append(documentID) }
    }

    /// Closes the database. Later calls throw `.notOpen`; closing twice does nothing.
    package func close() throws {
        let (wasOpen, timer) = state.withLock { state -> (Bool, ExpirationTimer?) in
            guard state.isOpen else { return (false, nil) }
            state.isOpen = false
            defer { state.expirationTimer = nil }
            return (true, state.expirationTimer)
        }
        timer?.cancel()
        // A purge the timer already started finishes before the file closes under it (no user
        // code runs on this queue, so this cannot wait on itself).
        if wasOpen { housekeepingQueue.sync {} }
        if wasOpen {
            persistedKeys.detach(self)
            SharedKeysRegistry.shared.release(path: engine.dataFilePath(inBundle: bundle.path))
        }
        try DatabaseError.mapping("closing \"\(bundle.name)\"") { try dataFile.close() }
        bundleLock.release()
    }

    deinit {
        state.withLock { $0.expirationTimer?.cancel() }
    }

    /// The delay the expiration timer keeps after a failure (0 when the last run succeeded).
    func expirationRetryDelay() -> Int64 { state.withLock { $0.expirationRetryDelay } }

    /// Records a failed expiration run. - Returns: the delay before the next try.
    func noteExpirationFailure() -> Int64 {
        state.withLock { state in
            state.expirationRetryDelay = min(max(state.expirationRetryDelay * 2, 1_000), 60_000)
            return state.expirationRetryDelay
        }
    }

    /// Records a successful expiration run.
    func noteExpirationSuccess() {
        state.withLock { $0.expirationRetryDelay = 0 }
    }

    /// Replaces the housekeeping timer, cancelling the previous one.
    func replaceExpirationTimer(with timer: ExpirationTimer?) {
        let old = state.withLock { state in
            defer { state.expirationTimer = timer }
            return state.expirationTimer
        }
        old?.cancel()
    }
}

/// The housekeeping timer that purges expired documents: a task that sleeps, then hands the
/// purge to the housekeeping queue, so the synchronous database work never holds a thread of
/// Swift's small cooperative pool. (A Dispatch timer source did the same, but Dispatch marks
/// none of its sources Sendable.)
struct ExpirationTimer: Sendable {
    private let task: Task<Void, Never>

    init(queue: DispatchQueue, after milliseconds: Int64, handler: @escaping @Sendable () -> Void) {
        task = Task.detached {
            do {
                try await Task.sleep(for: .milliseconds(max(milliseconds, 0)), tolerance: .milliseconds(50))
            } catch {
                return  // cancelled: replaced by a newer timer, or the database closed
            }
            queue.async(execute: handler)
        }
    }

    /// Stops the timer unless its purge has already been handed to the queue.
    func cancel() { task.cancel() }
}
