import CRocksDB
import LiteStorage

/// The writes of the open transaction: a plain RocksDB write batch (committed atomically) and
/// the same writes in a dictionary, so reads inside the transaction see them.
///
/// A write batch with an index would give the same, but maintaining its index and asking it on
/// every insert cost more than the whole raw insert; a Swift dictionary costs one hash.
final class RocksDBPendingWrites {
    let batch: OpaquePointer
    /// Key → new value, or `nil` for a deletion.
    private(set) var overlay: [[UInt8]: [UInt8]?] = [:]

    init(path: String) throws {
        guard let batch = rocksdb_writebatch_create() else {
            throw StorageError(.engineFailure, "RocksDB database \"\(path)\": cannot allocate a write batch")
        }
        self.batch = batch
    }

    deinit { rocksdb_writebatch_destroy(batch) }

    func put(_ key: [UInt8], _ value: [UInt8]) {
        key.withUnsafeBytes { key in
            value.withUnsafeBytes { value in
                rocksdb_writebatch_put(batch, key.baseAddress?.assumingMemoryBound(to: CChar.self), key.count,
                                       value.baseAddress?.assumingMemoryBound(to: CChar.self), value.count)
            }
        }
        overlay[key] = .some(value)
    }

    func delete(_ key: [UInt8]) {
        key.withUnsafeBytes { key in
            rocksdb_writebatch_delete(batch, key.baseAddress?.assumingMemoryBound(to: CChar.self), key.count)
        }
        overlay[key] = .some(nil)
    }

    /// `.some(value)` or `.some(nil)` (deleted) when the transaction wrote `key`; `nil` otherwise.
    func lookup(_ key: [UInt8]) -> [UInt8]?? { overlay[key] }

    /// The transaction's writes in `lower ..< upper`, ascending by key.
    func entries(lower: [UInt8], upper: [UInt8]?) -> [(key: [UInt8], value: [UInt8]?)] {
        overlay.filter { entry in
            !entry.key.lexicographicallyPrecedes(lower) && (upper.map { entry.key.lexicographicallyPrecedes($0) } ?? true)
        }
        .map { (key: $0.key, value: $0.value) }
        .sorted { $0.key.lexicographicallyPrecedes($1.key) }
    }
}
