import Glibc

/// Byte-key entries packed into one buffer, as an index build makes thousands of them: the
/// caller writes an entry's key, then its value, onto ``bytes`` and calls ``add(keyStart:valueStart:position:)``,
/// instead of making two arrays an entry. Each entry may carry the ``RecordView/position`` of
/// the record its value names, which a store made by ``DataFile/indexStore(_:over:)`` keeps
/// instead of looking the record up.
package struct PackedByteKeyEntries {
    /// Where one entry's bytes lie in ``bytes``.
    package struct Entry {
        /// The key's first byte.
        package let keyStart: Int
        /// The value's first byte (the key ends there).
        package let valueStart: Int
        /// The value's end.
        package let end: Int
        /// The linked record's position, or 0 when unknown.
        package let position: Int64
    }

    /// The entries' keys and values, one after another.
    package var bytes: [UInt8] = []
    /// The entries, in the order they were added (or sorted by ``sortByKey()``).
    package private(set) var entries: [Entry] = []
    /// The key store whose records the positions are of; a store linked to another ignores them.
    package let positionsOf: String?

    /// An empty set of entries, whose positions (if any) are of records of key store `positionsOf`.
    package init(positionsOf: String? = nil) {
        self.positionsOf = positionsOf
    }

    /// Adds the entry whose key is `bytes[keyStart..<valueStart]` and whose value runs from
    /// `valueStart` to the end of ``bytes``.
    package mutating func add(keyStart: Int, valueStart: Int, position: Int64 = 0) {
        entries.append(Entry(keyStart: keyStart, valueStart: valueStart, end: bytes.count, position: position))
    }

    /// Sorts the entries by key in unsigned byte order (equal keys keep their order).
    package mutating func sortByKey() {
        bytes.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return }
            entries.sort { a, b in
                let common = min(a.valueStart - a.keyStart, b.valueStart - b.keyStart)
                let order = common > 0 ? memcmp(base + a.keyStart, base + b.keyStart, common) : 0
                if order != 0 { return order < 0 }
                let (left, right) = (a.valueStart - a.keyStart, b.valueStart - b.keyStart)
                return left != right ? left < right : a.keyStart < b.keyStart
            }
        }
    }

    /// Lends each entry's key and value bytes and position, in order.
    package func forEach(_ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer, Int64) throws -> Void) rethrows {
        try bytes.withUnsafeBytes { buffer in
            for entry in entries {
                try body(UnsafeRawBufferPointer(rebasing: buffer[entry.keyStart..<entry.valueStart]),
                         UnsafeRawBufferPointer(rebasing: buffer[entry.valueStart..<entry.end]), entry.position)
            }
        }
    }

    /// The entries as arrays of keys and values, in order.
    package var pairs: [(key: [UInt8], value: [UInt8])] {
        var pairs: [(key: [UInt8], value: [UInt8])] = []
        pairs.reserveCapacity(entries.count)
        forEach { key, value, _ in pairs.append(([UInt8](key), [UInt8](value))) }
        return pairs
    }
}
