/// The part of the storage seam a faithful copy needs: writing a record exactly as another
/// store holds it (its sequence and expiration included) and setting a store's counters.
///
/// `KeyStore.set` always assigns the next sequence, which renumbers records; an engine
/// conversion must instead reproduce the source byte for byte, because replication
/// checkpoints and revision trees refer to sequences. Both engines conform.
///
/// ```swift
/// guard let target = destination.importing else { throw … }
/// try file.write { txn in
///     while let record = try cursor.next() { try target.importRecord(record, in: txn) }
///     try target.setCounters(lastSequence: 4_217, purgeCount: 3, in: txn)
/// }
/// ```
package protocol RecordImporting: KeyStore {
    /// Writes `record` under its key exactly as given — version, body, flags, `sequence` and
    /// `expiration` — replacing any record with that key.
    ///
    /// Raises the store's last sequence to `record.sequence` when it is lower; the purge count
    /// is unchanged.
    /// - Throws: `StorageError.invalidParameter` when `record.sequence` is 0 or another key
    ///   already has that sequence.
    func importRecord(_ record: Record, in txn: borrowing WriteTransaction) throws

    /// Sets the store's last sequence and purge count exactly.
    ///
    /// - Throws: `StorageError.invalidParameter` when `lastSequence` is below the highest
    ///   sequence a record in the store has (sequences must never be given twice).
    func setCounters(lastSequence: UInt64, purgeCount: UInt64, in txn: borrowing WriteTransaction) throws
}

extension KeyStore {
    /// This store as a ``RecordImporting`` store, or `nil` when its engine cannot copy exactly.
    package var importing: (any RecordImporting)? { self as? any RecordImporting }
}

extension StorageError {
    /// The error for an imported record without a usable sequence.
    package static func badImportSequence(store: String, key: String, sequence: UInt64,
                                          holder: String?) -> StorageError {
        if let holder {
            return StorageError(.invalidParameter, "key store \"\(store)\": cannot import \"\(key)\" at "
                                + "sequence \(sequence): record \"\(holder)\" already has it")
        }
        return StorageError(.invalidParameter, "key store \"\(store)\": cannot import \"\(key)\" with "
                            + "sequence 0; imported records keep their source sequence")
    }
}
