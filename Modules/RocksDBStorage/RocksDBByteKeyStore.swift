import CRocksDB
import LiteStorage

/// A byte-key store in RocksDB: entries under `20|id|key`; RocksDB's default comparator is
/// bytewise, which is the unsigned byte order the protocol promises.
package final class RocksDBByteKeyStore: ByteKeyStore, Sendable {
    /// The store's name.
    package let name: String
    let id: UInt32
    let file: RocksDBDataFile
    private let prefix: [UInt8]

    init(name: String, id: UInt32, file: RocksDBDataFile) {
        self.name = name
        self.id = id
        self.file = file
        prefix = RocksDBLayout.prefix(RocksDBLayout.byteKeyTag, id)
    }

    private func bounds(_ range: ByteKeyRange) -> ([UInt8], [UInt8]?) {
        (prefix + (range.lower ?? []), range.upper.map { prefix + $0 } ?? ByteKeyRange.successor(ofPrefix: prefix))
    }

    /// Stores `value` under `key`.
    package func put(_ key: [UInt8], _ value: [UInt8], in txn: borrowing WriteTransaction) throws {
        file.put(prefix + key, value, in: try file.batch(txn))
    }

    /// Stores the entries in order, each key made once under the store's prefix from the
    /// packed bytes (through arrays, each key was copied twice). Positions are not kept: this
    /// engine links nothing.
    package func put(packed entries: PackedByteKeyEntries, in txn: borrowing WriteTransaction) throws {
        let batch = try file.batch(txn)
        entries.forEach { key, value, _ in
            var full: [UInt8] = []
            full.reserveCapacity(prefix.count + key.count)
            full += prefix
            full += key
            file.put(full, [UInt8](value), in: batch)
        }
    }

    /// The value under `key`, or `nil`.
    package func get(_ key: [UInt8]) throws -> [UInt8]? {
        try file.handle.get(prefix + key, view: try file.view()) { [UInt8]($0) }
    }

    /// Removes `key`.
    @discardableResult
    package func delete(_ key: [UInt8], in txn: borrowing WriteTransaction) throws -> Bool {
        let batch = try file.batch(txn)
        guard try file.handle.get(prefix + key, view: .transaction(batch), { _ in true }) != nil else {
            return false
        }
        file.delete(prefix + key, in: batch)
        return true
    }

    /// Removes every key in `range`.
    @discardableResult
    package func delete(range: ByteKeyRange, in txn: borrowing WriteTransaction) throws -> Int {
        let batch = try file.batch(txn)
        let (lower, upper) = bounds(range)
        return try file.deleteRange(lower: lower, upper: upper, in: batch)
    }

    /// Entries in `range`, in key order.
    package func scan(_ range: ByteKeyRange, descending: Bool) throws -> ByteKeyEnumerator {
        let (lower, upper) = bounds(range)
        let iterator = try file.handle.iterator(view: try file.view(), lower: lower, upper: upper)
        if descending { iterator.seekLast() } else { iterator.seekFirst() }
        let prefixLength = prefix.count
        return ByteKeyEnumerator(next: {
            guard try iterator.isValid() else { return nil }
            let entry = ByteKeyEntry(key: [UInt8](UnsafeRawBufferPointer(rebasing: iterator.key.dropFirst(prefixLength))),
                                     value: [UInt8](iterator.value))
            if descending { iterator.previous() } else { iterator.next() }
            return entry
        }, close: { iterator.close() })
    }

    /// Lends each entry's bytes straight from the iterator (the protocol's default copied every
    /// key and value into arrays: two allocations an entry of a covered index read).
    package func visit(_ range: ByteKeyRange, descending: Bool,
                       _ visitor: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Bool) throws {
        let (lower, upper) = bounds(range)
        let iterator = try file.handle.iterator(view: try file.view(), lower: lower, upper: upper)
        defer { iterator.close() }
        if descending { iterator.seekLast() } else { iterator.seekFirst() }
        let prefixLength = prefix.count
        while try iterator.isValid() {
            let key = iterator.key
            guard key.count >= prefixLength else { return }
            guard try visitor(UnsafeRawBufferPointer(rebasing: key[prefixLength...]), iterator.value) else { return }
            if descending { iterator.previous() } else { iterator.next() }
        }
    }

    /// The number of entries.
    package func count() throws -> Int {
        let (lower, upper) = bounds(.all)
        let iterator = try file.handle.iterator(view: try file.view(), lower: lower, upper: upper)
        defer { iterator.close() }
        var count = 0
        iterator.seekFirst()
        while try iterator.isValid() {
            count += 1
            iterator.next()
        }
        return count
    }
}
