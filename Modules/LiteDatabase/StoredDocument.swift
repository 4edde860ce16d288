import Fleece
import LiteStorage

/// A document as the database stores it: its record's metadata and its revision tree.
package struct StoredDocument: Sendable {
    /// The document ID.
    package let id: String
    /// The sequence of the document's last change (0 for a document not yet saved).
    package var sequence: UInt64
    /// The record flags (deleted, conflicted, hasAttachments, synced).
    package var flags: DocumentFlags
    /// Every kept revision, current first.
    package var tree: RevisionTree
    /// The expiration, in milliseconds since the Unix epoch.
    package var expiration: Int64?
    /// The current revision's body as it was stored when the document was read (nil when
    /// there was no document or the revision was a deletion): what indexes hold for it.
    package var storedCurrentBody: [UInt8]?
    /// The current revision's ID as stored when the document was read.
    package var storedRevisionID: RevisionID?

    /// An unsaved document.
    package init(id: String) {
        self.id = id
        sequence = 0
        flags = DocumentFlags(rawValue: 0)   // `[]` goes through the generic `SetAlgebra` initializer
        tree = RevisionTree()
        expiration = nil
    }

    /// Decodes a record of the documents store.
    package init(record: Record) throws {
        id = record.key
        sequence = record.sequence
        flags = record.flags
        expiration = record.expiration
        do {
            tree = try RevisionTree(encoded: record.body, recordSequence: record.sequence)
        } catch {
            throw DatabaseError(error, context: "document \"\(record.key)\"")
        }
        // The synced flag is the lazy form of "remote #1 has the current revision" (a push
        // sets the flag instead of rewriting the document): make it explicit in the tree, so a
        // later save keeps the remote ancestor (the base of the next conflict-free push).
        if flags.contains(.synced), let current = tree.current {
            tree.setRemoteRevision(Self.defaultRemoteID, to: current.id)
        }
        storedCurrentBody = tree.current.flatMap { $0.isDeleted ? nil : ($0.body ?? []) }
        storedRevisionID = tree.current?.id
    }

    /// The remote the synced flag stands for (LiteCore's remote #1).
    package static let defaultRemoteID: UInt16 = 1

    /// Whether the document exists in the database (has been saved at least once).
    package var exists: Bool { !tree.isEmpty }
    /// The current revision.
    package var current: Revision? { tree.current }
    /// The current revision's ID.
    package var revisionID: RevisionID? { tree.current?.id }
    /// Whether the current revision is a deletion.
    package var isDeleted: Bool { flags.contains(.deleted) }

    /// The current revision's Fleece body, read with the database's shared keys; validated
    /// unless `trusted` (for a body this process has just encoded itself).
    package func body(sharedKeys: SharedKeys, trusted: Bool = false) throws -> FleeceDocument? {
        guard let bytes = tree.current?.body else { return nil }
        do {
            return try FleeceDocument(bytes: bytes.isEmpty ? Self.emptyDictionary : bytes, sharedKeys: sharedKeys,
                                      trusted: trusted)
        } catch {
            throw DatabaseError(.corruptRevisionData,
                                "document \"\(id)\": the body of revision \(tree.current?.id.string ?? "?") is not valid Fleece",
                                underlying: error)
        }
    }

    /// A deleted revision is saved with this body (an empty Fleece dictionary).
    package static let emptyDictionary: [UInt8] = [0x70, 0x00]
}
