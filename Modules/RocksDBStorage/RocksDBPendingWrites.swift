import CRocksDB
import LiteStorage

/// The writes of the open transaction, in a dictionary so reads inside the transaction see them;
/// ``fill(_:)`` copies them into the RocksDB write batch committed atomically.
///
/// A write batch with an index would give the same, but maintaining its index and asking it on
/// every insert cost more than the whole raw insert; a Swift dictionary costs one hash.
///
/// The batch is built at commit, in key order, with each key once: the memtable is a skip list
/// that remembers where its last insert went, so ascending inserts skip most of the search a
/// batch in arrival order pays for every key (decision Storage-18).
final class RocksDBPendingWrites {
    /// A key of the overlay. `[UInt8]`'s own hashing feeds the hasher one byte at a time; this
    /// feeds it the bytes in one call, which made inserts markedly cheaper.
    private struct Key: Hashable {
        let bytes: [UInt8]

        func hash(into hasher: inout Hasher) {
            bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
        }
    }

    private let path: String
    /// Key → new value, or `nil` for a deletion.
    private var overlay: [Key: [UInt8]?]

    /// - Parameter expectedWrites: how many writes to make room for (the previous transaction's
    ///   count), so a bulk transaction does not regrow the overlay again and again.
    init(path: String, expectedWrites: Int = 0) {
        self.path = path
        overlay = Dictionary(minimumCapacity: expectedWrites)
    }

    /// The number of keys the transaction wrote.
    var count: Int { overlay.count }

    func put(_ key: [UInt8], _ value: [UInt8]) {
        overlay[Key(bytes: key)] = .some(value)
    }

    func delete(_ key: [UInt8]) {
        overlay[Key(bytes: key)] = .some(nil)
    }

    /// Fills `batch` (emptied first) with the transaction's final writes in ascending key order.
    ///
    /// One copy, into the batch's own buffer, which a batch from ``RocksDBBatchPool`` has from
    /// an earlier commit (Storage-23). Building a new batch per commit, by puts or from bytes
    /// serialized here (Storage-21), allocated that buffer again each time.
    func fill(_ batch: OpaquePointer) throws {
        let writes = sortedWrites()
        guard writes.count <= Int(UInt32.max),
              writes.allSatisfy({ $0.key.bytes.count <= Int(UInt32.max) && ($0.value?.count ?? 0) <= Int(UInt32.max) })
        else {
            throw StorageError(.unexpectedError, "RocksDB database \"\(path)\": a transaction or value over 4 GB cannot be written")
        }
        rocksdb_writebatch_clear(batch)
        for (key, value) in writes {
            key.bytes.withUnsafeBytes { key in
                let keyBytes = key.baseAddress?.assumingMemoryBound(to: CChar.self)
                if let value {
                    value.withUnsafeBytes { value in
                        rocksdb_writebatch_put(batch, keyBytes, key.count,
                                               value.baseAddress?.assumingMemoryBound(to: CChar.self), value.count)
                    }
                } else {
                    rocksdb_writebatch_delete(batch, keyBytes, key.count)
                }
            }
        }
    }

    /// The writes in ascending key order, each with its value (so building the batch looks
    /// nothing up again).
    private func sortedWrites() -> [(key: Key, value: [UInt8]?)] {
        var writes = Array(overlay)
        writes.sort { left, right in
            left.key.bytes.withUnsafeBytes { RocksDBIterator.compare($0, right.key.bytes) < 0 }
        }
        return writes
    }

    /// The last key a read in this transaction found in neither the writes nor the database.
    /// A save reads a new document's key twice (does it exist? then, storing it, what to
    /// replace?); the second read is answered here. The database cannot gain the key while
    /// the transaction holds the writer lock, and a write of it is found in the writes first.
    private var lastAbsentKey: [UInt8]?

    func isKnownAbsent(_ key: [UInt8]) -> Bool { lastAbsentKey == key }

    func noteAbsent(_ key: [UInt8]) { lastAbsentKey = key }

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
