/// A 1.x document as the migration needs it: the winning revision and its ancestry.
///
/// Produced by ``LegacyDatabaseReader``; conflicting (losing) leaves are not included, as the
/// 2.0 upgrade does not copy them.
package struct LegacyDocument: Sendable, Hashable {
    /// The document ID (never starts with `_`: those are skipped).
    package let id: String
    /// The 1.x sequence of the winning revision.
    package let sequence: Int64
    /// True when the winning revision is a deletion (tombstone).
    package let isDeleted: Bool
    /// The winning revision's body: JSON bytes exactly as 1.x stored them (key order kept,
    /// without `_id`/`_rev`, `_attachments` stubs included). `{}` for a tombstone stored with
    /// no body.
    package let body: [UInt8]
    /// True when 1.x recorded attachments for the winning revision (`no_attachments = 0`); the
    /// 2.x has-attachments flag.
    package let hasAttachments: Bool
    /// The revision history, current first: the winning revision ID, then its parent, and so on
    /// back to the oldest ancestor 1.x kept.
    package let history: [LegacyRevisionID]
    /// The `_attachments` entries of the body, sorted by name.
    package let attachments: [LegacyAttachment]

    /// The winning revision's ID (the first entry of ``history``).
    package var revisionID: LegacyRevisionID { history[0] }

    /// Creates a document; `history` must not be empty.
    package init?(id: String, sequence: Int64, isDeleted: Bool, body: [UInt8], hasAttachments: Bool,
                  history: [LegacyRevisionID], attachments: [LegacyAttachment]) {
        guard !history.isEmpty else { return nil }
        self.id = id
        self.sequence = sequence
        self.isDeleted = isDeleted
        self.body = body
        self.hasAttachments = hasAttachments
        self.history = history
        self.attachments = attachments
    }
}
