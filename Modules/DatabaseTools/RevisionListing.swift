import LiteDatabase

/// A document's revision tree as `cblite revs` shows it; `Codable` for `--json`.
package struct RevisionListing: Codable, Sendable, Hashable {
    /// One revision.
    package struct Entry: Codable, Sendable, Hashable {
        /// The revision ID (`3-abc…`).
        package var revID: String
        /// The parent's revision ID, or nil for a root.
        package var parent: String?
        /// The sequence it was saved with (0 when not saved locally).
        package var sequence: UInt64
        /// Whether it is the current revision.
        package var current: Bool
        /// Whether it is a leaf.
        package var leaf: Bool
        /// Whether it is a deletion.
        package var deleted: Bool
        /// Whether it is the losing side of a conflict.
        package var conflict: Bool
        /// Whether its body refers to blobs.
        package var hasAttachments: Bool
        /// The size of the body kept for it, or nil when its body is not kept.
        package var bodySize: Int?
    }

    /// The document ID.
    package var id: String
    /// The revisions, current first (the tree's stored order).
    package var revisions: [Entry]

    /// Lists `document`'s tree.
    package init(_ document: StoredDocument) {
        id = document.id
        let revisions = document.tree.revisions
        self.revisions = revisions.enumerated().map { index, revision in
            Entry(revID: revision.id.string, parent: revision.parent.map { revisions[$0].id.string },
                  sequence: revision.sequence, current: index == 0, leaf: revision.isLeaf,
                  deleted: revision.isDeleted, conflict: revision.isConflict,
                  hasAttachments: revision.flags.contains(.hasAttachments), bodySize: revision.body?.count)
        }
    }

    /// One line per revision: `*` marks the current one, then ID, flags, parent, sequence, body.
    package var text: String {
        revisions.map { entry in
            var flags: [String] = []
            if entry.leaf { flags.append("leaf") }
            if entry.deleted { flags.append("deleted") }
            if entry.conflict { flags.append("conflict") }
            if entry.hasAttachments { flags.append("attachments") }
            var line = (entry.current ? "* " : "  ") + entry.revID
            if !flags.isEmpty { line += "  [" + flags.joined(separator: ", ") + "]" }
            line += "  seq \(entry.sequence)"
            line += entry.bodySize.map { "  body \($0) bytes" } ?? "  no body"
            if let parent = entry.parent { line += "  parent \(parent)" }
            return line
        }.joined(separator: "\n")
    }
}
