/// The flags stored with every record, with the bit values of Couchbase Lite 2.x
/// (`flags` column of `kv_<store>`).
package struct DocumentFlags: OptionSet, Hashable, Sendable {
    /// The raw bits.
    package let rawValue: UInt32
    /// Wraps raw bits.
    package init(rawValue: UInt32) { self.rawValue = rawValue }

    /// The current revision is a tombstone.
    package static let deleted = DocumentFlags(rawValue: 0x01)
    /// The document has more than one active leaf revision.
    package static let conflicted = DocumentFlags(rawValue: 0x02)
    /// Some revision refers to blobs.
    package static let hasAttachments = DocumentFlags(rawValue: 0x04)
    /// The current revision has been pushed to the remote.
    package static let synced = DocumentFlags(rawValue: 0x08)
}
