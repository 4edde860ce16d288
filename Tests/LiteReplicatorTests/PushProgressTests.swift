import Fleece
import LiteDatabase
import Testing
import TestSupport
@testable import LiteReplicator

/// What a pusher records of the peer's revisions (found by the soak test: documents saved
/// again while their push was in flight, or whose push reply was lost with the connection, were
/// proposed without the parent the peer had and refused with 409 at every later change).
@Suite(.ownThreads) struct PushProgressTests {
    static func save(_ core: DatabaseCore, _ id: String, _ json: String) throws -> StoredDocument {
        let base = try core.document(id: id)?.revisionID
        return try #require(try core.saveRevision(id: id, base: base, policy: .failOnConflict) { encoder in
            try Array(json.utf8).withUnsafeBytes { try JSONConverter.write(json: $0, to: encoder) }
        })
    }

    @Test(arguments: StorageEngineKind.allCases)
    func aRevisionPushedWhileTheDocumentChangedBecomesTheParentOfTheNextProposal(engine: StorageEngineKind) async throws {
        try await withReplicatorCore(engine) { core in
            let database = ReplicationDatabase(core: core)
            let first = try Self.save(core, "a", #"{"n":1}"#)
            let second = try Self.save(core, "a", #"{"n":2}"#)
            let pushed = try #require(first.revisionID), current = try #require(second.revisionID)
            // The push of the first revision completes after the second was saved.
            try await database.markPushed([("a", first.sequence, pushed)], remoteID: StoredDocument.defaultRemoteID)
            let listed = try database.changes(since: 0, limit: 10, remoteID: StoredDocument.defaultRemoteID, documentIDs: nil)
            #expect(listed.changes.map(\.revisionID) == [current])
            #expect(listed.changes.first?.remoteAncestor == pushed)

            // Forward only: a late record of an older revision does not move it back.
            try await database.markPushed([("a", 0, current)], remoteID: StoredDocument.defaultRemoteID)
            try await database.markPushed([("a", first.sequence, pushed)], remoteID: StoredDocument.defaultRemoteID)
            #expect(try core.document(id: "a")?.tree.remoteRevision(StoredDocument.defaultRemoteID)?.id == current)
            #expect(try database.changes(since: 0, limit: 10, remoteID: StoredDocument.defaultRemoteID,
                                         documentIDs: nil).changes.isEmpty)

            // Another remote gets the revision that was pushed, not the document's newer one.
            let third = try Self.save(core, "a", #"{"n":3}"#)
            try await database.markPushed([("a", third.sequence - 1, current)], remoteID: 5)
            #expect(try core.document(id: "a")?.tree.remoteRevision(5)?.id == current)
        }
    }

    /// The `rev` for a listed change is built from the document the listing read (no second
    /// read), so it is the listed revision even when the document changed since; a change
    /// listed without its document sends the current revision, read then.
    @Test(arguments: StorageEngineKind.allCases)
    func aListedChangeSendsTheListedRevision(engine: StorageEngineKind) async throws {
        try await withReplicatorCore(engine) { core in
            let database = ReplicationDatabase(core: core)
            let first = try Self.save(core, "a", #"{"n":1}"#)
            let listed = try #require(try database.changes(since: 0, limit: 10, remoteID: 1, documentIDs: nil).changes.first)
            #expect(listed.listedDocument?.revisionID == first.revisionID)
            let second = try Self.save(core, "a", #"{"n":2}"#)

            let sent = try #require(try database.revisionToSend(listed, knownAncestors: [], maxHistory: 20))
            #expect(sent.revisionID == first.revisionID)
            #expect(String(decoding: sent.json, as: UTF8.self) == #"{"n":1}"#)

            let withoutDocument = OutgoingChange(documentID: "a", revisionID: listed.revisionID, sequence: listed.sequence,
                                                 deleted: false, bodySize: listed.bodySize, remoteAncestor: nil)
            let current = try #require(try database.revisionToSend(withoutDocument, knownAncestors: [], maxHistory: 20))
            #expect(current.revisionID == second.revisionID)
            #expect(current.ancestors == [try #require(first.revisionID)])
        }
    }
}
