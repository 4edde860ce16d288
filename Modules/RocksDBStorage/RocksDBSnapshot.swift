import CRocksDB
import LiteStorage

/// A RocksDB snapshot and the read options that read through it.
package final class RocksDBSnapshot: @unchecked Sendable {
    // Unchecked: RocksDB's snapshot and read options are C pointers, made once and then only
    // read through by RocksDB calls, which are thread-safe.
    let handle: RocksDBHandle
    let snapshot: OpaquePointer
    let readOptions: OpaquePointer

    init(handle: RocksDBHandle) throws {
        guard handle.pin() else {
            throw StorageError(.notOpen, "RocksDB database \"\(handle.path)\" is closed")
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
