/// One entry of a foreign index as the file's own index structure holds it: the record it
/// belongs to and the values of the index's expressions for that record (see
/// ``ForeignIndexHolding/foreignIndexEntries(named:)``).
package struct ForeignIndexEntry: Sendable, Equatable {
    /// The record's key (the document ID).
    package var recordKey: String
    /// The values of the index's expressions, in the index's column order, as the engine
    /// represents them (a boolean reads back as an integer: SQL keeps no subtype in an index).
    package var values: [StoredScalar]

    /// Makes an entry.
    package init(recordKey: String, values: [StoredScalar]) {
        self.recordKey = recordKey
        self.values = values
    }
}
