/// What a write transaction found when it read a record: enough for the key store to replace
/// that record without reading it again (``KeyStore/set(_:replacing:)``).
package struct RecordState: Hashable, Sendable {
    /// The record's sequence when it was read.
    package var sequence: UInt64
    /// Its expiration when it was read, which the write keeps.
    package var expiration: Int64?

    package init(sequence: UInt64, expiration: Int64?) {
        self.sequence = sequence
        self.expiration = expiration
    }
}

extension Record {
    /// This record's state as read, for ``KeyStore/set(_:replacing:)``.
    package var state: RecordState { RecordState(sequence: sequence, expiration: expiration) }
}
