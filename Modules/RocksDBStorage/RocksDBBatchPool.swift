import CRocksDB
import LiteStorage
import LiteSupport

/// One RocksDB write batch kept between commits, for every RocksDB database of the process
/// (decision Storage-23).
///
/// A commit copies the transaction's writes into a batch, and RocksDB copies the batch into its
/// WAL and memtable. A batch made for each commit allocated its buffer anew, a megabyte and more
/// for a bulk transaction, and the C library hands allocations that size out as fresh pages:
/// about half of the page faults of an import were that buffer's. A cleared batch keeps its
/// buffer, so the next commit, of this database or another, writes into pages already mapped.
enum RocksDBBatchPool {
    /// A batch whose buffer grew past this is destroyed after its commit instead of kept.
    static let keptCapacityLimit = 8 << 20

    private struct Batch: @unchecked Sendable {
        // @unchecked: a batch is used by one thread at a time: taken out of the pool, or in it.
        let pointer: OpaquePointer
    }

    private static let kept = Locked<Batch?>(nil)

    /// An empty batch: the kept one if no other commit holds it, else a new one.
    static func take() throws -> OpaquePointer {
        if let batch = kept.withLock({ kept -> Batch? in
            defer { kept = nil }
            return kept
        }) {
            return batch.pointer
        }
        guard let batch = rocksdb_writebatch_create() else {
            throw StorageError(.unexpectedError, "RocksDB: cannot allocate a write batch")
        }
        return batch
    }

    /// Gives `batch` back after its commit (written or not): it is emptied and kept unless its
    /// buffer grew past ``keptCapacityLimit`` or another batch is kept already.
    static func giveBack(_ batch: OpaquePointer) {
        var size = 0
        _ = rocksdb_writebatch_data(batch, &size)
        guard size <= keptCapacityLimit else {
            rocksdb_writebatch_destroy(batch)
            return
        }
        rocksdb_writebatch_clear(batch)
        let kept = kept.withLock { kept -> Bool in
            guard kept == nil else { return false }
            kept = Batch(pointer: batch)
            return true
        }
        if !kept { rocksdb_writebatch_destroy(batch) }
    }
}
