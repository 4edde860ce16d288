/// A key store's last sequence and purge count as the open write transaction sees them: read
/// from the file when the transaction first uses the store, changed by its writes, and written
/// back (and reported in the ``CommitEvent``) at commit when ``touched``.
package struct TransactionStoreCounters: Sendable {
    /// The store's name.
    package let name: String
    /// The last sequence when the transaction began.
    package let initialLastSequence: UInt64
    /// The last sequence including the transaction's writes.
    package var lastSequence: UInt64
    /// The purge count when the transaction began.
    package var initialPurgeCount: UInt64
    /// How many records the transaction purged.
    package var purged: UInt64 = 0
    /// Whether the transaction changed the counters (only those are written back).
    package var touched = false

    /// The counters as the file holds them when the transaction first uses the store.
    package init(name: String, lastSequence: UInt64, purgeCount: UInt64) {
        self.name = name
        initialLastSequence = lastSequence
        self.lastSequence = lastSequence
        initialPurgeCount = purgeCount
    }

    /// The purge count including the transaction's purges.
    package var purgeCount: UInt64 { initialPurgeCount + purged }

    /// The counters of the store keyed `key` in `table` (a transaction's counters by store), or,
    /// the first time the transaction changes that store, those `load` reads from the file.
    package static func current<Key: Hashable>(
        _ key: Key, in table: [Key: TransactionStoreCounters]?, name: String,
        load: () throws -> (lastSequence: UInt64, purgeCount: UInt64)
    ) rethrows -> TransactionStoreCounters {
        if let counters = table?[key] { return counters }
        let (lastSequence, purgeCount) = try load()
        return TransactionStoreCounters(name: name, lastSequence: lastSequence, purgeCount: purgeCount)
    }

    /// These counters marked as changed by the transaction.
    package var markedTouched: TransactionStoreCounters {
        var counters = self
        counters.touched = true
        return counters
    }

    /// What the commit event says of this store.
    package var change: CommitEvent.StoreChange {
        .init(store: name, previousLastSequence: initialLastSequence, lastSequence: lastSequence, purged: purged)
    }
}
