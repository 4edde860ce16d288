/// A named map from document ID to ``Record`` inside a data file, with a per-store sequence.
///
/// Reads on the thread that is inside `DataFile.write` see that transaction's writes; reads
/// inside `DataFile.withReadSnapshot` see the snapshot; any other read sees committed data.
/// Writes take the transaction `DataFile.write` lends its body.
package protocol KeyStore: AnyObject, Sendable {
    /// The store's name (`default`, `info`, …).
    var name: String { get }

    /// The record with this key, or `nil`.
    func get(_ key: String, content: RecordContent) throws -> Record?

    /// The record with this sequence, or `nil`.
    func get(sequence: UInt64, content: RecordContent) throws -> Record?

    /// Stores `record` under its key with the next sequence and returns that sequence.
    ///
    /// - Parameter ifSequence: `nil` writes unconditionally; `0` only inserts (the key must not
    ///   exist); `N` only replaces a record whose current sequence is still `N`.
    /// - Throws: `StorageError.conflict` when the condition does not hold.
    @discardableResult
    func set(_ record: Record, ifSequence: UInt64?, in txn: borrowing WriteTransaction) throws -> UInt64

    /// Stores `record` over the record with its key as this same write transaction read it
    /// (`nil`: it found none), and returns the new sequence. The same as
    /// `set(record, ifSequence: read?.sequence ?? 0, in: txn)`, except that a store may rely on `read`
    /// instead of reading the record again: the caller promises nothing wrote it since.
    @discardableResult
    func set(_ record: Record, replacing read: RecordState?, in txn: borrowing WriteTransaction) throws -> UInt64

    /// Changes a record's flags (e.g. marks it synced) without giving it a new sequence, so
    /// the change feed and replication checkpoints do not see it as a change.
    /// - Returns: whether the record exists.
    @discardableResult
    func setFlags(_ key: String, to flags: DocumentFlags, in txn: borrowing WriteTransaction) throws -> Bool

    /// Adds `flags` to the record with `key` if its sequence is still `sequence`, without
    /// giving it a new sequence (a pushed document is marked synced only if it did not change
    /// after it was listed).
    /// - Returns: whether a record with that key and sequence exists.
    @discardableResult
    func addFlags(_ flags: DocumentFlags, key: String, ifSequence sequence: UInt64,
                  in txn: borrowing WriteTransaction) throws -> Bool
    /// Removes the record for good (no tombstone) and increments the purge count.
    /// - Returns: whether a record was removed.
    @discardableResult
    func purge(_ key: String, in txn: borrowing WriteTransaction) throws -> Bool

    /// The number of records, optionally counting those flagged deleted.
    func recordCount(includeDeleted: Bool) throws -> Int

    /// The highest sequence ever given in this store (0 when none); never decreases.
    func lastSequence() throws -> UInt64

    /// How many records have been purged from this store, ever.
    func purgeCount() throws -> UInt64

    /// Records in key order (unsigned UTF-8 byte order) with `startKey <= key <= endKey` (each
    /// bound optional); `options.descending` walks the same range from the end.
    func enumerate(startKey: String?, endKey: String?,
                   options: RecordEnumerationOptions) throws -> RecordEnumerator

    /// Every record `options` accepts, lent to `visitor` without copies, in no promised order
    /// unless `options.inKeyOrder`;
    /// stops when the visitor returns false (see `KeyStore+Visiting` for the default).
    func visitRecords(options: RecordEnumerationOptions, _ visitor: (RecordView) throws -> Bool) throws

    /// The same visit restricted to the records whose body `accepts` takes. An engine may call
    /// it inside its own scan and spare the rest of each record it rejects; either way the
    /// visitor sees a record just after `accepts` took that record's body, with no other call
    /// between, so `accepts` can leave what it found for the visitor. `accepts` must not read
    /// the store.
    func visitRecords(options: RecordEnumerationOptions, accepting accepts: (UnsafeRawBufferPointer) -> Bool,
                      _ visitor: (RecordView) throws -> Bool) throws

    /// Lends the record with `key` to `visitor` without copying it; false when there is none.
    /// The visitor must not read this store (its statement is the one lending the bytes).
    @discardableResult
    func visitRecord(_ key: String, _ visitor: (RecordView) throws -> Void) throws -> Bool

    /// Lends `visitor` the records whose keys are the values of `index`'s entries in `range`, in
    /// the index's key order (reversed when `descending`), skipping values that name no record;
    /// stops when it returns false. A value index's candidates are read this way: an engine can
    /// join the two in one pass (see `KeyStore+Visiting` for the default, a lookup per entry).
    func visitRecords(keyedBy index: ByteKeyStore, in range: ByteKeyRange, descending: Bool,
                      _ visitor: (RecordView) throws -> Bool) throws

    /// ``visitRecords(keyedBy:in:descending:_:)`` for a caller that does not need the index's
    /// order (it puts the records in its own order after): in whatever order the engine reads
    /// them fastest. The default is the index's order.
    func visitRecordsInAnyOrder(keyedBy index: ByteKeyStore, in range: ByteKeyRange,
                                _ visitor: (RecordView) throws -> Bool) throws

    /// Records whose sequence is greater than `since`, in ascending sequence order.
    func enumerate(since: UInt64, options: RecordEnumerationOptions) throws -> RecordEnumerator

    /// Sets or clears (`nil`) a record's expiration, in milliseconds since the Unix epoch.
    /// - Returns: whether the record exists.
    @discardableResult
    func setExpiration(_ key: String, to expiration: Int64?, in txn: borrowing WriteTransaction) throws -> Bool

    /// The record's expiration, or `nil` when it has none or does not exist.
    func expiration(of key: String) throws -> Int64?

    /// The earliest expiration in the store, or `nil`.
    func nextExpiration() throws -> Int64?

    /// The keys of records whose expiration is at or before `now`, earliest first.
    func expiredKeys(at now: Int64) throws -> [String]
}

extension KeyStore {
    /// Checks the sequence again, as a store that does not keep its own state cheaply does.
    @discardableResult
    package func set(_ record: Record, replacing read: RecordState?,
                     in txn: borrowing WriteTransaction) throws -> UInt64 {
        try set(record, ifSequence: read?.sequence ?? 0, in: txn)
    }

    /// The record with this key, with its body.
    package func get(_ key: String) throws -> Record? { try get(key, content: .all) }

    /// The record with this sequence, with its body.
    package func get(sequence: UInt64) throws -> Record? { try get(sequence: sequence, content: .all) }

    /// Every live record in key order.
    package func enumerate(options: RecordEnumerationOptions = .init()) throws -> RecordEnumerator {
        try enumerate(startKey: nil, endKey: nil, options: options)
    }

    /// The number of live records.
    package func recordCount() throws -> Int { try recordCount(includeDeleted: false) }
}
