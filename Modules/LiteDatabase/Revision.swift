/// Flags of one revision in a revision tree, with LiteCore's bit values (they are stored).
package struct RevisionFlags: OptionSet, Hashable, Sendable {
    /// The raw bits.
    package let rawValue: UInt8
    /// Wraps raw bits.
    package init(rawValue: UInt8) { self.rawValue = rawValue }

    /// The revision is a deletion (tombstone).
    package static let deleted = RevisionFlags(rawValue: 0x01)
    /// The revision has no children.
    package static let leaf = RevisionFlags(rawValue: 0x02)
    /// Inserted since the tree was read; never stored.
    package static let new = RevisionFlags(rawValue: 0x04)
    /// The body contains blobs or attachments.
    package static let hasAttachments = RevisionFlags(rawValue: 0x08)
    /// Keep the body even when the revision stops being a leaf (e.g. a remote's current revision).
    package static let keepBody = RevisionFlags(rawValue: 0x10)
    /// The revision is on a conflicting branch that has not been resolved.
    package static let isConflict = RevisionFlags(rawValue: 0x20)
    /// A deleted leaf that closes a branch.
    package static let closed = RevisionFlags(rawValue: 0x40)
}

/// One revision of a document: its ID, flags, parent, sequence and (if kept) Fleece body.
package struct Revision: Hashable, Sendable {
    /// The revision's ID.
    package var id: RevisionID
    /// The revision's flags.
    package var flags: RevisionFlags
    /// The index of the parent revision in the tree, if the parent is still in the tree.
    package var parent: Int?
    /// The database sequence at which this revision was saved (0 until saved).
    package var sequence: UInt64
    /// The revision's Fleece body, when the tree keeps it (leaves, and `keepBody` revisions).
    package var body: [UInt8]?

    /// Whether the revision has no children.
    package var isLeaf: Bool { flags.contains(.leaf) }
    /// Whether the revision is a deletion.
    package var isDeleted: Bool { flags.contains(.deleted) }
    /// A live leaf: a branch end that is not deleted.
    package var isActive: Bool { isLeaf && !isDeleted }
    /// Whether the revision is on an unresolved conflicting branch.
    package var isConflict: Bool { flags.contains(.isConflict) }
    /// Whether the revision was added since the tree was read.
    package var isNew: Bool { flags.contains(.new) }
}

extension Revision {
    /// Tree order: the revision that should be current comes first. Leaves before inner revisions,
    /// then non-conflicting before conflicting, live before deleted, open before closed, and
    /// finally the higher revision ID.
    static func hasPriority(_ a: Revision, over b: Revision) -> Bool {
        if a.isLeaf != b.isLeaf { return a.isLeaf }
        if a.isConflict != b.isConflict { return !a.isConflict }
        if a.isDeleted != b.isDeleted { return !a.isDeleted }
        let aClosed = a.flags.contains(.closed), bClosed = b.flags.contains(.closed)
        if aClosed != bClosed { return !aClosed }
        return b.id < a.id
    }
}
