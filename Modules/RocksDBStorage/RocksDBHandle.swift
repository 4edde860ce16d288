import CRocksDB
import Foundation
import LiteStorage

/// One open RocksDB database, shared by every `RocksDBDataFile` on the same folder in this
/// process (RocksDB's LOCK file allows one opener per process, and one handle is thread-safe).
final class RocksDBHandle: @unchecked Sendable {
    let db: OpaquePointer
    let path: String
    let isReadOnly: Bool
    private let options: OpaquePointer
    private let tableOptions: OpaquePointer
    let readOptions: OpaquePointer
    let syncWriteOptions: OpaquePointer
    // Invariant: changed only with the owning SharedFile's engine-state lock held.
    var users = 0
    // Open iterators and snapshots pin the handle: RocksDB must outlive them, so a close
    // requested while some are open happens when the last one is released.
    private let pinLock = NSLock()
    private var pins = 0
    private var closeRequested = false

    init(db: OpaquePointer, path: String, readOnly: Bool, options: OpaquePointer, tableOptions: OpaquePointer) {
        self.db = db
        self.path = path
        isReadOnly = readOnly
        self.options = options
        self.tableOptions = tableOptions
        readOptions = rocksdb_readoptions_create()
        syncWriteOptions = rocksdb_writeoptions_create()
        // Durable commits: the WAL is fsynced before write returns (LiteCore's promise too).
        rocksdb_writeoptions_set_sync(syncWriteOptions, 1)
    }

    /// Keeps the handle open until ``unpin()``; `false` when it is already closing.
    func pin() -> Bool {
        pinLock.lock()
        defer { pinLock.unlock() }
        guard !closeRequested else { return false }
        pins += 1
        return true
    }

    /// Releases a pin; closes the handle if a close was waiting for it.
    func unpin() {
        pinLock.lock()
        pins -= 1
        let closeNow = closeRequested && pins == 0
        pinLock.unlock()
        if closeNow { destroy() }
    }

    /// Closes RocksDB now, or when the last open iterator or snapshot is released.
    func close() {
        pinLock.lock()
        closeRequested = true
        let closeNow = pins == 0
        pinLock.unlock()
        if closeNow { destroy() }
    }

    private func destroy() {
        rocksdb_close(db)
        rocksdb_readoptions_destroy(readOptions)
        rocksdb_writeoptions_destroy(syncWriteOptions)
        rocksdb_options_destroy(options)
        rocksdb_block_based_options_destroy(tableOptions)
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
            return StorageError(.corrupt, "RocksDB database \"\(path)\" is damaged (while \(action)); "
                                + "restore it from a backup", underlying: cause)
        }
        if text.contains("lock") || text.contains("LOCK") {
            return StorageError(.busy, "RocksDB database \"\(path)\" is open in another process (while "
                                + "\(action)); close it there first", underlying: cause)
        }
        if text.hasPrefix("IO error") {
            return StorageError(.ioFailure, "RocksDB database \"\(path)\": cannot read or write its files "
                                + "(while \(action)); check permissions and free space", underlying: cause)
        }
        return StorageError(.engineFailure, "RocksDB database \"\(path)\": \(text) (while \(action))",
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
            return try get(key, view: .latest, body)
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
            throw StorageError(.closed, "RocksDB database \"\(path)\" is closed")
        }
        let iterator = rocksdb_create_iterator(db, view.readOptions(default: readOptions))
        var overlay: [(key: [UInt8], value: [UInt8]?)] = []
        if case .transaction(let batch) = view { overlay = batch.entries(lower: lower, upper: upper) }
        return RocksDBIterator(handle: iterator, owner: self, lower: lower, upper: upper, overlay: overlay)
    }
}

/// Which data a RocksDB read sees.
enum RocksDBView {
    /// The latest committed data.
    case latest
    /// The data committed when the snapshot was taken.
    case snapshot(RocksDBSnapshot)
    /// The open transaction's writes over the latest committed data.
    case transaction(RocksDBPendingWrites)

    func readOptions(default options: OpaquePointer) -> OpaquePointer {
        if case .snapshot(let snapshot) = self { return snapshot.readOptions }
        return options
    }
}

/// A RocksDB snapshot and the read options that read through it.
final class RocksDBSnapshot: @unchecked Sendable {
    let handle: RocksDBHandle
    let snapshot: OpaquePointer
    let readOptions: OpaquePointer

    init(handle: RocksDBHandle) throws {
        guard handle.pin() else {
            throw StorageError(.closed, "RocksDB database \"\(handle.path)\" is closed")
        }
        self.handle = handle
        snapshot = rocksdb_create_snapshot(handle.db)
        readOptions = rocksdb_readoptions_create()
        rocksdb_readoptions_set_snapshot(readOptions, snapshot)
    }

    func release() {
        rocksdb_readoptions_destroy(readOptions)
        rocksdb_release_snapshot(handle.db, snapshot)
        handle.unpin()
    }
}

/// A RocksDB iterator confined to `lower ..< upper` (bounds checked here), merged with the open
/// transaction's writes when there are any. It walks one way: from ``seekFirst()`` forward with
/// ``next()``, or from ``seekLast()`` backward with ``previous()``.
final class RocksDBIterator {
    private var handle: OpaquePointer?
    private var owner: RocksDBHandle?
    let lower: [UInt8]
    let upper: [UInt8]?
    let path: String
    /// The transaction's writes in range, ascending; `nil` values are deletions.
    private let overlay: [(key: [UInt8], value: [UInt8]?)]
    private var overlayIndex = 0
    private var descending = false
    private enum Source { case database, overlay }
    private var current: Source?

    /// Takes over `handle` and one pin of `owner`, both released by ``close()``.
    init(handle: OpaquePointer?, owner: RocksDBHandle, lower: [UInt8], upper: [UInt8]?,
         overlay: [(key: [UInt8], value: [UInt8]?)] = []) {
        self.handle = handle
        self.owner = owner
        self.lower = lower
        self.upper = upper
        self.overlay = overlay
        path = owner.path
    }

    deinit { close() }

    func close() {
        if let handle { rocksdb_iter_destroy(handle) }
        handle = nil
        current = nil
        owner?.unpin()
        owner = nil
    }

    func seekFirst() {
        descending = false
        guard let handle else { return }
        lower.withUnsafeBytes {
            rocksdb_iter_seek(handle, $0.baseAddress?.assumingMemoryBound(to: CChar.self), $0.count)
        }
        overlayIndex = 0
        settle()
    }

    /// Positions at the last key in range.
    func seekLast() {
        descending = true
        guard let handle else { return }
        if let upper {
            upper.withUnsafeBytes {
                rocksdb_iter_seek(handle, $0.baseAddress?.assumingMemoryBound(to: CChar.self), $0.count)
            }
            if rocksdb_iter_valid(handle) != 0 { rocksdb_iter_prev(handle) } else { rocksdb_iter_seek_to_last(handle) }
        } else {
            rocksdb_iter_seek_to_last(handle)
        }
        overlayIndex = overlay.count - 1
        settle()
    }

    func next() { advance() }
    func previous() { advance() }

    private func advance() {
        guard let handle, let current else { return }
        switch current {
        case .database: if descending { rocksdb_iter_prev(handle) } else { rocksdb_iter_next(handle) }
        case .overlay: overlayIndex += descending ? -1 : 1
        }
        settle()
    }

    private var databaseKey: UnsafeRawBufferPointer? {
        guard let handle, rocksdb_iter_valid(handle) != 0 else { return nil }
        var length = 0
        let key = UnsafeRawBufferPointer(start: rocksdb_iter_key(handle, &length), count: length)
        if Self.compare(key, lower) < 0 { return nil }
        if let upper, Self.compare(key, upper) >= 0 { return nil }
        return key
    }

    /// Chooses the source of the current entry: the nearer key in the walking direction, the
    /// transaction's write when both have the same key, skipping deletions.
    private func settle() {
        guard let handle else { return }
        while true {
            let databaseKey = self.databaseKey
            let overlayEntry = overlay.indices.contains(overlayIndex) ? overlay[overlayIndex] : nil
            guard let overlayEntry else {
                current = databaseKey == nil ? nil : .database
                return
            }
            if let databaseKey {
                let order = Self.compare(databaseKey, overlayEntry.key)
                if order == 0 {
                    // Shadowed by the transaction's write: step the database side past it.
                    if descending { rocksdb_iter_prev(handle) } else { rocksdb_iter_next(handle) }
                    continue
                }
                if (order < 0) != descending {
                    current = .database
                    return
                }
            }
            if overlayEntry.value == nil {
                overlayIndex += descending ? -1 : 1
                continue
            }
            current = .overlay
            return
        }
    }

    /// Whether the iterator is on an entry; throws the iterator's error if any.
    func isValid() throws -> Bool {
        guard let handle else { return false }
        if current == nil {
            var error: UnsafeMutablePointer<CChar>?
            rocksdb_iter_get_error(handle, &error)
            try RocksDBHandle.check(error, path: path, doing: "iterating")
        }
        return current != nil
    }

    /// The current key (valid until the iterator moves).
    var key: UnsafeRawBufferPointer {
        switch current {
        case .database?:
            var length = 0
            return UnsafeRawBufferPointer(start: handle.map { rocksdb_iter_key($0, &length) } ?? nil, count: length)
        case .overlay?:
            // The overlay array lives as long as the iterator and is never mutated.
            return overlay[overlayIndex].key.withUnsafeBytes { $0 }
        case nil:
            return UnsafeRawBufferPointer(start: nil, count: 0)
        }
    }

    /// The current value (valid until the iterator moves).
    var value: UnsafeRawBufferPointer {
        switch current {
        case .database?:
            var length = 0
            return UnsafeRawBufferPointer(start: handle.map { rocksdb_iter_value($0, &length) } ?? nil, count: length)
        case .overlay?:
            return (overlay[overlayIndex].value ?? []).withUnsafeBytes { $0 }
        case nil:
            return UnsafeRawBufferPointer(start: nil, count: 0)
        }
    }

    /// memcmp order: the byte order RocksDB's default comparator uses.
    static func compare(_ a: UnsafeRawBufferPointer, _ b: [UInt8]) -> Int {
        b.withUnsafeBytes { b in
            let common = min(a.count, b.count)
            if common > 0, let pa = a.baseAddress, let pb = b.baseAddress {
                let result = memcmp(pa, pb, common)
                if result != 0 { return Int(result) }
            }
            return a.count - b.count
        }
    }
}
