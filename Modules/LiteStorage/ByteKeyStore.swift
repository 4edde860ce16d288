/// A named, ordered map from byte keys to byte values, for indexes.
///
/// Keys are ordered by their unsigned bytes (memcmp order), so an order-preserving key
/// encoding gives index order. Same visibility and transaction rules as ``KeyStore``.
package protocol ByteKeyStore: AnyObject, Sendable {
    /// The store's name.
    var name: String { get }

    /// Stores `value` under `key`, replacing any previous value.
    func put(_ key: [UInt8], _ value: [UInt8], in txn: borrowing WriteTransaction) throws

    /// Stores each entry's value under its key, in order (a later entry replaces an earlier
    /// one with the same key): what a ``put(_:_:in:)`` per entry does, in fewer engine calls where
    /// the engine can (many small entries in a row, as an index build writes them).
    func put(_ entries: [(key: [UInt8], value: [UInt8])], in txn: borrowing WriteTransaction) throws

    /// Stores packed entries as the put of an array of entries stores them, in their order;
    /// a store made by ``DataFile/indexStore(_:over:)`` keeps each entry's known position
    /// instead of looking its record up.
    func put(packed entries: PackedByteKeyEntries, in txn: borrowing WriteTransaction) throws

    /// The value under `key`, or `nil`.
    func get(_ key: [UInt8]) throws -> [UInt8]?

    /// Removes `key`. - Returns: whether it existed.
    @discardableResult
    func delete(_ key: [UInt8], in txn: borrowing WriteTransaction) throws -> Bool

    /// Removes every key in `range`. - Returns: how many were removed.
    @discardableResult
    func delete(range: ByteKeyRange, in txn: borrowing WriteTransaction) throws -> Int

    /// Entries in `range`, ascending or descending by key.
    func scan(_ range: ByteKeyRange, descending: Bool) throws -> ByteKeyEnumerator

    /// The number of entries.
    func count() throws -> Int

    /// Lends `visitor` each entry in `range` (key, then value; the bytes are valid only during
    /// the call), ascending or descending by key, until it returns false. The visitor may read
    /// other stores but must not visit this one again.
    func visit(_ range: ByteKeyRange, descending: Bool,
               _ visitor: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Bool) throws
}

extension ByteKeyStore {
    /// Through ``scan(_:descending:)``, for engines with nothing cheaper.
    package func visit(_ range: ByteKeyRange, descending: Bool,
                       _ visitor: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Bool) throws {
        let cursor = try scan(range, descending: descending)
        defer { cursor.close() }
        while let entry = try cursor.next() {
            let goesOn = try entry.key.withUnsafeBytes { key in try entry.value.withUnsafeBytes { try visitor(key, $0) } }
            if !goesOn { return }
        }
    }

    /// One ``put(_:_:in:)`` per entry, for engines with nothing cheaper.
    package func put(_ entries: [(key: [UInt8], value: [UInt8])], in txn: borrowing WriteTransaction) throws {
        for (key, value) in entries { try put(key, value, in: txn) }
    }

    /// As an array of entries, for engines with nothing cheaper.
    package func put(packed entries: PackedByteKeyEntries, in txn: borrowing WriteTransaction) throws {
        try put(entries.pairs, in: txn)
    }

    /// Entries whose key starts with `prefix`, ascending.
    package func scan(prefix: [UInt8], descending: Bool = false) throws -> ByteKeyEnumerator {
        try scan(ByteKeyRange(prefix: prefix), descending: descending)
    }

    /// Every entry, ascending.
    package func scanAll() throws -> ByteKeyEnumerator { try scan(.all, descending: false) }
}
