import CRocksDB
import FoundationEssentials
import Glibc
import LiteStorage

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

    /// Positions forward at the first key in range at or after `key` (the walk then goes on
    /// forward with ``next()``).
    func seek(_ key: [UInt8]) {
        descending = false
        guard let handle else { return }
        let target = key.withUnsafeBytes { Self.compare($0, lower) } < 0 ? lower : key
        target.withUnsafeBytes {
            rocksdb_iter_seek(handle, $0.baseAddress?.assumingMemoryBound(to: CChar.self), $0.count)
        }
        var low = 0, high = overlay.count
        while low < high {
            let middle = (low + high) / 2
            if overlay[middle].key.withUnsafeBytes({ Self.compare($0, target) }) < 0 { low = middle + 1 } else { high = middle }
        }
        overlayIndex = low
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
            return databaseBytes(rocksdb_iter_key)
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
            return databaseBytes(rocksdb_iter_value)
        case .overlay?:
            return (overlay[overlayIndex].value ?? []).withUnsafeBytes { $0 }
        case nil:
            return UnsafeRawBufferPointer(start: nil, count: 0)
        }
    }

    /// The current entry's key or value (`read` is `rocksdb_iter_key` or `rocksdb_iter_value`).
    @inline(__always)
    private func databaseBytes(
        _ read: (OpaquePointer?, UnsafeMutablePointer<Int>?) -> UnsafePointer<CChar>?
    ) -> UnsafeRawBufferPointer {
        var length = 0
        return UnsafeRawBufferPointer(start: handle.map { read($0, &length) } ?? nil, count: length)
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
