import Fleece
import Foundation
import LiteDatabase
import LiteReplicator

extension Replicator {
    /// The document a filter or conflict resolver is shown. A body that cannot be read is an
    /// error (the revision is not replicated), never an empty document.
    static func document(for info: ReplicationDocumentInfo, in database: Database) throws -> Document {
        try CouchbaseLiteError.wrapping("reading revision \(info.revisionID) of \"\(info.documentID)\" for replication") {
            let body = try info.body.map { try FleeceDocument(bytes: $0, sharedKeys: database.core.sharedKeys) }
            var stored = StoredDocument(id: info.documentID)
            // A lone revision of any generation: its ancestors are not needed to show it.
            try stored.tree.insertHistory([RevisionID(parsing: info.revisionID)], body: info.body ?? StoredDocument.emptyDictionary,
                                          deleted: info.deleted)
            return Document(id: info.documentID, database: database, stored: stored, body: body, mutable: false)
        }
    }

    static func flags(_ info: ReplicationDocumentInfo) -> DocumentFlags {
        info.deleted ? .deleted : []
    }

    /// Runs a custom conflict resolver and turns its answer into a decision.
    static func resolve(_ conflict: ReplicationConflict, with resolver: any ConflictResolverProtocol,
                        in database: Database) throws -> ConflictDecision {
        func document(_ body: [UInt8]?, revision: RevisionID) throws -> Document? {
            guard let body else { return nil }
            return try Self.document(for: ReplicationDocumentInfo(documentID: conflict.documentID, revisionID: revision.string,
                                                              deleted: false, body: body), in: database)
        }
        let local = try document(conflict.localBody, revision: conflict.localRevision)
        let remote = try document(conflict.remoteBody, revision: conflict.remoteRevision)
        let resolved = resolver.resolve(conflict: Conflict(documentID: conflict.documentID, localDocument: local,
                                                           remoteDocument: remote))
        guard let resolved else { return .delete }
        if resolved.id != conflict.documentID {
            throw CouchbaseLiteError(.conflict, "the conflict resolver returned document \"\(resolved.id)\" "
                                     + "for a conflict in \"\(conflict.documentID)\"")
        }
        if let remote, resolved === remote { return .useRemote }
        if let local, resolved === local { return .useLocal }
        return .merged(json: Array(resolved.toJSON().utf8))
    }
}

extension CouchbaseLiteError {
    /// A failure the replication engine reported for one document, with its 2.x number.
    init(failure: ReplicationFailure) {
        self.init(ReplicationError(failure.domain, failure.code, failure.message))
    }
}
