import Foundation
import LiteDatabase
import LiteReplicator

extension Replicator {
    /// The IDs of local documents with changes not yet pushed (push replicators only).
    public func pendingDocumentIds() throws -> Set<String> {
        Set(try pendingChanges(documentID: nil).map(\.documentID))
    }

    /// Whether the document has changes not yet pushed (push replicators only).
    public func isDocumentPending(_ documentID: String) throws -> Bool {
        !(try pendingChanges(documentID: documentID).isEmpty)
    }

    private func pendingChanges(documentID: String?) throws -> [OutgoingChange] {
        guard config.replicatorType != .pull else {
            throw CouchbaseLiteError(.unsupported, "a pull-only replicator has no pending documents")
        }
        let core = config.database.core
        return try CouchbaseLiteError.wrapping("listing the documents waiting to be pushed") {
            let store = CheckpointStore(core: core)
            let id = try CheckpointStore.checkpointID(privateUUID: core.privateUUID(), remoteURL: remoteURLString,
                                                      channels: config.channels, documentIDs: config.documentIDs)
            let since = try store.localCheckpoint(id: id)?.local ?? 0
            var ids = config.documentIDs.map(Set.init)
            if let documentID { ids = ids.map { $0.intersection([documentID]) } ?? [documentID] }
            // A remote never replicated with has no number yet: everything is pending.
            let remoteID = try RemoteDatabaseIDs.id(for: remoteURLString, in: core, create: false)
            return try ReplicationDatabase(core: core).changes(since: since, limit: .max, remoteID: remoteID ?? 0,
                                                                documentIDs: ids).changes
        }
    }

    /// The peer's identity in checkpoint IDs.
    var remoteURLString: String {
        if let endpoint = config.target as? DatabaseEndpoint {
            return URL(fileURLWithPath: endpoint.database.core.bundle.path).absoluteString
        }
        if let endpoint = config.target as? URLEndpoint {
            return (try? ReplicatorNetwork.blipURL(for: endpoint.url).absoluteString) ?? endpoint.url.absoluteString  // allowed: a bad URL fails at start()
        }
        return ""
    }
}
