/// What a commit changed, per key store: enumerate each store `since` its previous last
/// sequence to see which records were written.
package struct CommitEvent: Sendable, Hashable {
    /// One key store touched by the transaction.
    package struct StoreChange: Sendable, Hashable {
        /// The store's name.
        package var store: String
        /// The store's last sequence before the transaction.
        package var previousLastSequence: UInt64
        /// The store's last sequence after the transaction.
        package var lastSequence: UInt64
        /// How many records the transaction purged.
        package var purged: UInt64

        /// Makes a change description.
        package init(store: String, previousLastSequence: UInt64, lastSequence: UInt64, purged: UInt64) {
            self.store = store
            self.previousLastSequence = previousLastSequence
            self.lastSequence = lastSequence
            self.purged = purged
        }
    }

    /// The data file's path.
    package var path: String
    /// The stores that changed, sorted by name.
    package var changes: [StoreChange]

    /// Makes an event.
    package init(path: String, changes: [StoreChange]) {
        self.path = path
        self.changes = changes
    }
}
