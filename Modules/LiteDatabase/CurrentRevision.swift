import LiteStorage

/// A document's current revision as a read saw it: what the public `Document` shows and saves
/// on top of, without the revision tree.
///
/// Keeping only the revision ID loses no conflict check: a save reads the document's whole tree
/// again inside its transaction and compares that tree's current revision with ``revisionID``
/// (see `DatabaseCore.saveRevision`), as it did when documents carried their tree.
package struct CurrentRevision: Sendable {
    /// The document ID.
    package let documentID: String
    /// The sequence of the document's last change.
    package let sequence: UInt64
    /// The record's flags (deleted, conflicted, hasAttachments, synced).
    package let flags: DocumentFlags
    /// The current revision's ID.
    package let revisionID: RevisionID

    /// Makes the state of a document from its parts.
    package init(documentID: String, sequence: UInt64, flags: DocumentFlags, revisionID: RevisionID) {
        self.documentID = documentID
        self.sequence = sequence
        self.flags = flags
        self.revisionID = revisionID
    }

    /// The current revision of a decoded document; nil when it has none (never saved).
    package init?(_ document: StoredDocument) {
        guard let revisionID = document.revisionID else { return nil }
        self.init(documentID: document.id, sequence: document.sequence, flags: document.flags, revisionID: revisionID)
    }

    /// Whether the current revision is a deletion.
    package var isDeleted: Bool { flags.contains(.deleted) }
}
