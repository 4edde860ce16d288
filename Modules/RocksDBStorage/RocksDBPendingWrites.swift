import CRocksDB
import LiteStorage

/// The writes of the open transaction: a plain RocksDB write batch (committed atomically) and
/// the same writes in a dictionary, so reads inside the transaction see them.
///
/// A write batch with an index would give the same, but maintaining its index and asking it on
/// every insert cost more than the whole raw insert; a Swift dictionary costs one hash.
final class RocksDBPendingWrites {
    /// A key of the overlay. `[UInt8]`'s own hashing feeds the hasher one byte at a time; this
    /// feeds it the bytes in one call, which made inserts markedly cheaper.
    private struct Key: Hashable {
        let bytes: [UInt8]

        func hash(into hasher: inout Hasher) {
            bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
        }
    }

    let batch: OpaquePointer
    /// Key → new value, or `nil` for a deletion.
    private var overlay: [Key: [UInt8]?]

    /// - Parameter expectedWrites: how many writes to make room for (the previous transaction's
    ///   count), so a bulk transaction does not regrow the overlay again and again.
    init(path: String, expectedWrites: Int = 0) throws {
        guard let batch = rocksdb_writebatch_create() else {
            throw StorageError(.engineFailure, "RocksDB database \"\(path)\": cannot allocate a write batch")
        }
        self.batch = batch
        overlay = Dictionary(minimumCapacity: expectedWrites)
    }

    /// The number of keys the transaction wrote.
    var count: Int { overlay.count }

    deinit { rocksdb_writebatch_destroy(batch) }

    func put(_ key: [UInt8], _ value: [UInt8]) {
        key.withUnsafeBytes { key in
            value.withUnsafeBytes { value in
                rocksdb_writebatch_put(batch, key.baseAddress?.assumingMemoryBound(to: CChar.self), key.count,
                                       value.baseAddress?.assumingMemoryBound(to: CChar.self), value.count)
            }
        }
        overlay[Key(bytes: key)] = .some(value)
    }

    func delete(_ key: [UInt8]) {
        key.withUnsafeBytes { key in
            rocksdb_writebatch_delete(batch, key.baseAddress?.assumingMemoryBound(to: CChar.self), key.count)
        }
        overlay[Key(bytes: key)] = .some(nil)
    }

    /// `.some(value)` or `.some(nil)` (deleted) when the transaction wrote `key`; `nil` otherwise.
    func lookup(_ key: [UInt8]) -> [UInt8]?? { overlay[Key(bytes: key)] }

    /// The transaction's writes in `lower ..< upper`, ascending by key.
    func entries(lower: [UInt8], upper: [UInt8]?) -> [(key: [UInt8], value: [UInt8]?)] {
        overlay.filter { entry in
            !entry.key.bytes.lexicographicallyPrecedes(lower)
                && (upper.map { entry.key.bytes.lexicographicallyPrecedes($0) } ?? true)
        }
        .map { (key: $0.key.bytes, value: $0.value) }
        .sorted { $0.key.lexicographicallyPrecedes($1.key) }
    }
}
