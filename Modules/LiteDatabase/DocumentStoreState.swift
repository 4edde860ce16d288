/// The document store's counters at one moment: its last sequence and how many documents were
/// ever purged from it. An index that records the state it reflects can tell on open whether
/// someone wrote to the file without it (a higher last sequence: catch up from there; another
/// purge count: documents vanished without a trace, so rebuild).
package struct DocumentStoreState: Sendable, Hashable {
    /// The highest sequence given in the store.
    package var lastSequence: UInt64
    /// How many records were ever purged from the store.
    package var purgeCount: UInt64

    /// Makes a state.
    package init(lastSequence: UInt64, purgeCount: UInt64) {
        self.lastSequence = lastSequence
        self.purgeCount = purgeCount
    }
}
