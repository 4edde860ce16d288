/// One stored record: a document's current version and its body, as a key store keeps them.
///
/// `sequence` and `expiration` are assigned by the store; on `set` they are ignored (the store
/// assigns the next sequence, and `setExpiration` sets the expiration).
package struct Record: Hashable, Sendable {
    /// The document ID.
    package var key: String
    /// The current revision ID in binary form (or any "meta" bytes for raw records).
    package var version: [UInt8]
    /// The body: the revision tree for documents; empty when read with `.metaOnly`.
    package var body: [UInt8]
    /// The document flags.
    package var flags: DocumentFlags
    /// The sequence the store gave this record when it was last written (0 = never stored).
    package var sequence: UInt64
    /// When the record expires, in milliseconds since the Unix epoch; `nil` for never.
    package var expiration: Int64?
    /// The size of the stored body in bytes (set on read even with `.metaOnly`).
    package var bodySize: Int

    /// Makes a record to store.
    package init(key: String, version: [UInt8] = [], body: [UInt8] = [], flags: DocumentFlags = [],
                 sequence: UInt64 = 0, expiration: Int64? = nil, bodySize: Int? = nil) {
        self.key = key
        self.version = version
        self.body = body
        self.flags = flags
        self.sequence = sequence
        self.expiration = expiration
        self.bodySize = bodySize ?? body.count
    }

    /// Whether the current revision is a tombstone.
    package var isDeleted: Bool { flags.contains(.deleted) }
}
