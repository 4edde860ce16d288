import Fleece
import LiteStorage

/// One entry of the change feed: a document's latest change.
package struct DocumentChangeEntry: Sendable, Equatable {
    /// The document.
    package let documentID: String
    /// Its current revision.
    package let revisionID: RevisionID?
    /// The sequence of its latest change.
    package let sequence: UInt64
    /// Its record flags (deleted, conflicted, hasAttachments, synced).
    package let flags: DocumentFlags
}

extension DatabaseCore {
    /// The documents changed after sequence `since`, each once with its latest change, in
    /// sequence order, deletions included, read from the storage's sequence index in one
    /// snapshot: so changes another process committed are listed too (the in-process change
    /// notifier only says that something changed).
    ///
    /// - Parameter limit: at most this many entries (the rest: call again with the last
    ///   entry's sequence).
    package func changes(since: UInt64, limit: Int = .max) throws -> [DocumentChangeEntry] {
        try checkOpen()
        return try DatabaseError.mapping("listing the changes of \"\(bundle.name)\" since \(since)") {
            try dataFile.withReadSnapshot {
                let enumerator = try documents.enumerate(
                    since: since, options: RecordEnumerationOptions(includeDeleted: true, content: .metaOnly))
                var entries: [DocumentChangeEntry] = []
                while entries.count < limit, let record = try enumerator.next() {
                    entries.append(DocumentChangeEntry(documentID: record.key,
                                                       revisionID: try? RevisionID(binary: record.version),  // allowed: an undecodable stored version lists the document without a revision rather than stopping the listing
                                                       sequence: record.sequence, flags: record.flags))
                }
                return entries
            }
        }
    }

    /// Records `revisionID` as the latest revision remote `remoteID` has of the document (nil
    /// forgets it), in a transaction.
    package func setRemoteRevision(id: String, remoteID: UInt16, to revisionID: RevisionID?) throws {
        try inTransaction { txn in
            guard var document = try document(id: id), document.exists else {
                throw DatabaseError(.notFound, "cannot mark a remote revision of \"\(id)\": no such document")
            }
            document.tree.setRemoteRevision(remoteID, to: revisionID)
            try store(&document, in: txn)
        }
    }

    /// Resolves a conflict as Couchbase Lite 2.8 does: the losing branch goes; when
    /// `mergedBody` is given (Fleece with the database's shared keys) it is saved as a new
    /// revision on top of the winner.
    ///
    /// - Returns: the document after the resolution.
    @discardableResult
    package func resolveConflict(id: String, winner: RevisionID, loser: RevisionID,
                                 mergedBody: [UInt8]? = nil, mergedDeleted: Bool = false) throws -> StoredDocument {
        try inTransaction { txn in
            guard var document = try document(id: id), document.exists else {
                throw DatabaseError(.notFound, "cannot resolve a conflict of \"\(id)\": no such document")
            }
            try document.tree.resolveConflict(winner: winner, loser: loser)
            if mergedBody != nil || mergedDeleted {
                let body = mergedDeleted ? StoredDocument.emptyDictionary : (mergedBody ?? StoredDocument.emptyDictionary)
                let fleece = try FleeceDocument(bytes: body, sharedKeys: sharedKeys)
                let merged = RevisionID.next(after: winner, deleted: mergedDeleted, body: body)
                try document.tree.insert(merged, body: body, deleted: mergedDeleted,
                                         hasAttachments: BlobReferences.containsBlobs(fleece.root),
                                         parent: winner, allowConflict: false)
            }
            try store(&document, in: txn)
            return document
        }
    }

    /// Removes one leaf revision and the ancestors no other leaf shares; when none is left
    /// the document is purged.
    ///
    /// - Returns: how many revisions were removed.
    @discardableResult
    package func purgeRevision(id: String, revisionID: RevisionID) throws -> Int {
        try inTransaction { txn in
            guard var document = try document(id: id), document.exists else { return 0 }
            let removed = document.tree.purge(revisionID)
            guard removed > 0 else { return 0 }
            if document.tree.isEmpty {
                try purgeDocument(id: id)
            } else {
                try store(&document, in: txn)
            }
            return removed
        }
    }

    /// Marks the document as pushed to the server (the `synced` flag) if it is still at
    /// `sequence`, without giving it a new sequence, so it does not look changed again.
    ///
    /// - Returns: false when the document changed since (or is gone).
    @discardableResult
    package func markSynced(id: String, sequence: UInt64) throws -> Bool {
        try inTransaction { txn in
            try DatabaseError.mapping("marking \"\(id)\" as synced") {
                try documents.addFlags(.synced, key: id, ifSequence: sequence, in: txn)
            }
        }
    }
}
