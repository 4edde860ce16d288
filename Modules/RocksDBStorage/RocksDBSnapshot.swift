import CRocksDB
import LiteStorage
import LiteSupport

/// A RocksDB snapshot and the read options that read through it.
package final class RocksDBSnapshot: @unchecked Sendable {
    // Unchecked: RocksDB's snapshot and read options are C pointers, made once and then only
    // read through by RocksDB calls, which are thread-safe.
    let handle: RocksDBHandle
    let snapshot: OpaquePointer
    let readOptions: OpaquePointer
    /// An iterator on the snapshot that a closed ``RocksDBIterator`` gave back, for the next one
    /// to seek instead of making its own: making one cost RocksDB about 65,000 instructions,
    /// and a query reading eight index ranges made eight.
    private let spareIterator = Locked<OpaquePointer?>(nil)

    init(handle: RocksDBHandle) throws {
        guard handle.pin() else {
            throw StorageError(.notOpen, "RocksDB database \"\(handle.path)\" is closed")
        }
        self.handle = handle
        snapshot = rocksdb_create_snapshot(handle.db)
        readOptions = rocksdb_readoptions_create()
        rocksdb_readoptions_set_snapshot(readOptions, snapshot)
    }

    /// An iterator on the snapshot: the spare one, or a new one.
    func takeIterator() -> OpaquePointer? {
        if let spare = spareIterator.withLock({ spare in defer { spare = nil }; return spare }) { return spare }
        return rocksdb_create_iterator(handle.db, readOptions)
    }

    /// Keeps `iterator` (from ``takeIterator()``) as the spare, or destroys it when there is one.
    func giveBack(_ iterator: OpaquePointer) {
        let kept = spareIterator.withLock { spare in
            guard spare == nil else { return false }
            spare = iterator
            return true
        }
        if !kept { rocksdb_iter_destroy(iterator) }
    }

    func release() {
        if let spare = spareIterator.withLock({ spare in defer { spare = nil }; return spare }) { rocksdb_iter_destroy(spare) }
        rocksdb_readoptions_destroy(readOptions)
        rocksdb_release_snapshot(handle.db, snapshot)
        handle.unpin()
    }
}
