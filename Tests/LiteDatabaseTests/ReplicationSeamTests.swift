import Fleece
import Foundation
import LiteStorage
import TestSupport
import Testing
@testable import LiteDatabase

/// The operations the replicator builds on: the change feed, remote revisions, conflict
/// resolution and revision purge, each one transaction.
@Suite(.ownThreads) struct ReplicationSeamTests {
    private func fleece(_ core: DatabaseCore, _ json: String) throws -> [UInt8] {
        try JSONConverter.fleece(fromJSON: json, sharedKeys: core.sharedKeys)
    }

    private func revision(_ text: String) throws -> RevisionID { try RevisionID(parsing: text) }

    @Test(arguments: StorageEngineKind.allCases)
    func theChangeFeedListsEachDocumentOnceInSequenceOrder(engine: StorageEngineKind) throws {
        try withTemporaryCore(engine) { core, _ in
            let a = try #require(try save(core, "a", #"{"n":1}"#))
            try save(core, "b", #"{"n":2}"#)
            try save(core, "a", #"{"n":3}"#, base: a.revisionID)
            let b = try #require(try core.document(id: "b"))
            _ = try core.saveRevision(id: "b", base: b.revisionID, deleted: true, policy: .failOnConflict) { _ in }
            try save(core, "c", #"{"n":4}"#)

            let all = try core.changes(since: 0)
            #expect(all.map(\.documentID) == ["a", "b", "c"])
            #expect(all.map(\.sequence) == all.map(\.sequence).sorted())
            #expect(all[1].flags.contains(.deleted))
            #expect(all[0].revisionID == (try core.document(id: "a"))?.revisionID)
            #expect(try core.changes(since: all[0].sequence).map(\.documentID) == ["b", "c"])
            #expect(try core.changes(since: 0, limit: 2).map(\.documentID) == ["a", "b"])
            #expect(try core.changes(since: try core.lastSequence()) == [])
        }
    }

    /// A change written by another handle on the file (as another process would) is in the
    /// feed, although this instance's notifier never heard of it.
    @Test(arguments: StorageEngineKind.allCases)
    func theChangeFeedSeesAnotherWritersChanges(engine: StorageEngineKind) throws {
        try withTemporaryCore(engine) { core, _ in
            try save(core, "mine", #"{"n":1}"#)
            let since = try core.lastSequence()
            let path = core.engine.dataFilePath(inBundle: core.bundle.path)
            let other = try engine.engine.open(at: path, options: DataFileOptions(create: false, readOnly: false))
            defer { try? other.close() }
            let body = try fleece(core, #"{"n":2}"#)
            let id = RevisionID.next(after: nil, deleted: false, body: body)
            var tree = RevisionTree()
            try tree.insert(id, body: body, deleted: false, hasAttachments: false, parent: nil, allowConflict: false)
            try other.write { txn in
                try other.keyStore(DatabaseCore.StoreNames.documents)
                    .set(Record(key: "theirs", version: id.binary, body: try tree.encoded()), ifSequence: 0, in: txn)
            }
            #expect(try core.changes(since: since).map(\.documentID) == ["theirs"])
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func aRemoteRevisionIsRecordedWithItsInsertion(engine: StorageEngineKind) throws {
        try withTemporaryCore(engine) { core, _ in
            let history = [try revision("2-bbbb"), try revision("1-aaaa")]
            let (document, added) = try core.insertRevision(id: "doc", history: history,
                                                             body: try fleece(core, #"{"v":2}"#), deleted: false,
                                                             remoteID: 1)
            #expect(added == 2)
            #expect(document.tree.remoteRevision(1)?.id == history[0])
            let stored = try #require(try core.document(id: "doc"))
            #expect(stored.tree.remoteRevision(1)?.id == history[0])
            #expect(try core.changes(since: 0).count == 1)
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func anInsertedRevisionIsFlaggedWhenItRefersToABlob(engine: StorageEngineKind) throws {
        try withTemporaryCore(engine) { core, _ in
            let digest = "sha1-AAAAAAAAAAAAAAAAAAAAAAAAAAA="
            let bodies = [
                ("none", #"{"type":"blob","v":[1,{"a":"@typ"}]}"#, false),
                ("nested", #"{"list":[{"photo":{"@type":"blob","digest":"\#(digest)","length":1}}]}"#, true),
                ("top", #"{"@type":"blob"}"#, true),
                ("notABlob", #"{"x":{"@type":"photo"}}"#, false),
            ]
            for (id, json, flagged) in bodies {
                let (document, _) = try core.insertRevision(id: id, history: [try revision("1-aaaa")],
                                                             body: try fleece(core, json), deleted: false)
                #expect(document.flags.contains(.hasAttachments) == flagged, "\(id)")
                #expect(try core.document(id: id)?.flags.contains(.hasAttachments) == flagged, "\(id)")
            }
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func resolvingAConflictRemovesTheLoserAndCanSaveAMerge(engine: StorageEngineKind) throws {
        try withTemporaryCore(engine) { core, _ in
            let base = try #require(try save(core, "doc", #"{"v":1}"#))
            let baseID = try #require(base.revisionID)
            let mine = try #require(try save(core, "doc", #"{"v":"mine"}"#, base: baseID))
            let theirs = [try revision("2-ffff"), baseID]
            try core.insertRevision(id: "doc", history: theirs, body: try fleece(core, #"{"v":"theirs"}"#), deleted: false)
            #expect(try core.document(id: "doc")?.flags.contains(.conflicted) == true)

            let resolved = try core.resolveConflict(id: "doc", winner: try #require(mine.revisionID), loser: theirs[0],
                                                    mergedBody: try fleece(core, #"{"v":"merged"}"#))
            #expect(!resolved.flags.contains(.conflicted))
            #expect(resolved.revisionID?.generation == 3)
            #expect(resolved.tree.revision(theirs[0]) == nil)
            #expect(try json(core, "doc") == #"{"v":"merged"}"#)
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func purgingTheLastRevisionPurgesTheDocument(engine: StorageEngineKind) throws {
        try withTemporaryCore(engine) { core, _ in
            let base = try #require(try save(core, "doc", #"{"v":1}"#))
            let theirs = [try revision("2-ffff"), try #require(base.revisionID)]
            try save(core, "doc", #"{"v":2}"#, base: base.revisionID)
            try core.insertRevision(id: "doc", history: theirs, body: try fleece(core, #"{"v":"theirs"}"#), deleted: false)
            #expect(try core.purgeRevision(id: "doc", revisionID: theirs[0]) == 1)
            #expect(try core.document(id: "doc")?.flags.contains(.conflicted) == false)
            let current = try #require(try core.document(id: "doc")?.revisionID)
            #expect(try core.purgeRevision(id: "doc", revisionID: current) == 2)
            #expect(try core.document(id: "doc") == nil)
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func markingSyncedKeepsTheSequenceAndNeedsTheCurrentOne(engine: StorageEngineKind) throws {
        try withTemporaryCore(engine) { core, _ in
            let saved = try #require(try save(core, "doc", #"{"v":1}"#))
            let since = try core.lastSequence()
            #expect(try core.markSynced(id: "doc", sequence: saved.sequence))
            #expect(try core.document(id: "doc")?.flags.contains(.synced) == true)
            #expect(try core.document(id: "doc")?.sequence == saved.sequence)
            #expect(try core.changes(since: since).isEmpty)
            #expect(try core.markSynced(id: "doc", sequence: saved.sequence + 1) == false)
            #expect(try core.markSynced(id: "nobody", sequence: 1) == false)
            // A new local revision is not synced.
            try save(core, "doc", #"{"v":2}"#, base: saved.revisionID)
            #expect(try core.document(id: "doc")?.flags.contains(.synced) == false)
        }
    }
}
