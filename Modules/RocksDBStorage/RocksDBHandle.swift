import CRocksDB
import FoundationEssentials
import LiteStorage
import LiteSupport

/// One open RocksDB database, shared by every `RocksDBDataFile` on the same folder in this
/// process (RocksDB's LOCK file allows one opener per process, and one handle is thread-safe).
final class RocksDBHandle: @unchecked Sendable {
    // Unchecked: the C handles are RocksDB's thread-safe database, options and (for an
    // encrypted database) environment objects, made once;
    // `users` changes only under the shared file's engine-state lock; the pins are in `pinning`.
    let db: OpaquePointer
    let path: String
    let isReadOnly: Bool
    private let options: OpaquePointer
    private let tableOptions: OpaquePointer
    let readOptions: OpaquePointer
    let syncWriteOptions: OpaquePointer
    /// The key the files are encrypted with, and the environment that does it (which must
    /// outlive the database: destroyed after it); nil for a plaintext database.
    let encryptionKey: AES256Key?
    private let encryptionEnvironment: OpaquePointer?
    // Invariant: changed only with the owning SharedFile's engine-state lock held.
    var users = 0
    // Open iterators and snapshots pin the handle: RocksDB must outlive them, so a close
    // requested while some are open happens when the last one is released.
    private let pinning = Locked((pins: 0, closeRequested: false))

    init(db: OpaquePointer, path: String, readOnly: Bool, options: OpaquePointer, tableOptions: OpaquePointer,
         encryptionEnvironment: OpaquePointer?, encryptionKey: AES256Key?) {
        self.db = db
        self.encryptionEnvironment = encryptionEnvironment
        self.encryptionKey = encryptionKey
        self.path = path
        isReadOnly = readOnly
        self.options = options
        self.tableOptions = tableOptions
        readOptions = rocksdb_readoptions_create()
        syncWriteOptions = rocksdb_writeoptions_create()
        // Commits reach the WAL before write returns, so they survive the process being killed;
        // like the SQLite engine (LiteCore's `synchronous=normal`), they are not fsynced, so the
        // last commits may be lost if the machine itself loses power.
        rocksdb_writeoptions_set_sync(syncWriteOptions, 0)
    }

    /// Keeps the handle open until ``unpin()``; `false` when it is already closing.
    func pin() -> Bool {
        pinning.withLock { state in
            guard !state.closeRequested else { return false }
            state.pins += 1
            return true
        }
    }

    /// Releases a pin; closes the handle if a close was waiting for it.
    func unpin() {
        let closeNow = pinning.withLock { state in
            state.pins -= 1
            return state.closeRequested && state.pins == 0
        }
        if closeNow { destroy() }
    }

    /// Closes RocksDB now, or when the last open iterator or snapshot is released.
    func close() {
        let closeNow = pinning.withLock { state in
            state.closeRequested = true
            return state.pins == 0
        }
        if closeNow { destroy() }
    }

    private func destroy() {
        rocksdb_close(db)
        rocksdb_readoptions_destroy(readOptions)
        rocksdb_writeoptions_destroy(syncWriteOptions)
        rocksdb_options_destroy(options)
        rocksdb_block_based_options_destroy(tableOptions)
        // The environment goes after the database that used it.
        if let encryptionEnvironment { RocksDBEncryption.destroyEnvironment(encryptionEnvironment) }
    }

    /// Turns a RocksDB error string into a `StorageError` and frees it.
    static func check(_ error: UnsafeMutablePointer<CChar>?, path: String, doing action: String) throws {
        guard let error else { return }
        let text = String(cString: error)
        rocksdb_free(error)
        throw storageError(text, path: path, doing: action)
    }

    static func storageError(_ text: String, path: String, doing action: String) -> StorageError {
        let cause = EngineMessage(text)
        if text.hasPrefix("Corruption") {
            return StorageError(.corruptData, "RocksDB database \"\(path)\" is damaged (while \(action)); "
                                + "restore it from a backup", underlying: cause)
        }
        if text.contains("lock") || text.contains("LOCK") {
            return StorageError(.busy, "RocksDB database \"\(path)\" is open in another process (while "
                                + "\(action)); close it there first", underlying: cause)
        }
        if text.hasPrefix("IO error") {
            return StorageError(.ioError, "RocksDB database \"\(path)\": cannot read or write its files "
                                + "(while \(action)); check permissions and free space", underlying: cause)
        }
        return StorageError(.unexpectedError, "RocksDB database \"\(path)\": \(text) (while \(action))",
                            underlying: cause)
    }

    // MARK: Reading

    /// Calls `body` with the value under `key` as `view` sees it; `nil` when absent.
    func get<T>(_ key: [UInt8], view: RocksDBView,
                _ body: (UnsafeRawBufferPointer) throws -> T) throws -> T? {
        var error: UnsafeMutablePointer<CChar>?
        switch view {
        case .transaction(let batch):
            if let written = batch.lookup(key) {
                guard let value = written else { return nil }
                return try value.withUnsafeBytes(body)
            }
            if batch.isKnownAbsent(key) { return nil }
            let value = try get(key, view: .latest, body)
            if value == nil { batch.noteAbsent(key) }
            return value
        case .latest, .snapshot:
            let options = view.readOptions(default: readOptions)
            let slice = key.withUnsafeBytes { buffer in
                rocksdb_get_pinned(db, options, buffer.baseAddress?.assumingMemoryBound(to: CChar.self),
                                   buffer.count, &error)
            }
            try Self.check(error, path: path, doing: "reading")
            guard let slice else { return nil }
            defer { rocksdb_pinnableslice_destroy(slice) }
            var length = 0
            let value = rocksdb_pinnableslice_value(slice, &length)
            return try body(UnsafeRawBufferPointer(start: value, count: length))
        }
    }

    /// An iterator over keys in `lower ..< upper` as `view` sees it.
    func iterator(view: RocksDBView, lower: [UInt8], upper: [UInt8]?) throws -> RocksDBIterator {
        guard pin() else {
            throw StorageError(.notOpen, "RocksDB database \"\(path)\" is closed")
        }
        let iterator = rocksdb_create_iterator(db, view.readOptions(default: readOptions))
        var overlay: [(key: [UInt8], value: [UInt8]?)] = []
        if case .transaction(let batch) = view { overlay = batch.entries(lower: lower, upper: upper) }
        return RocksDBIterator(handle: iterator, owner: self, lower: lower, upper: upper, overlay: overlay)
    }
}
