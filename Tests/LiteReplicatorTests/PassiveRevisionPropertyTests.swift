import BLIP
import LiteDatabase
import PropertyBased
import Testing
import TestSupport
@testable import LiteReplicator

/// A listener answers pushed revisions from its inserter, without a task per revision. For
/// generated pushes (new documents, updates, branches, revisions with or without
/// `noconflicts`, bodies that are not objects), the replies and the saved documents must be
/// those of the path that saves each revision in its own task (the active side's, and the
/// listener's before).
@Suite(.ownThreads) struct PassiveRevisionPropertyTests {
    /// One `rev` request, from six generated numbers: document, generation, a digest choice
    /// per generation, `noconflicts`, body.
    static func request(_ picks: [Int]) -> BLIPMessage {
        let generation = 1 + picks[1] % 3
        let digests = ["a", "b", "c"].map { String(repeating: $0, count: 40) }
        let revisions = (1...generation).reversed().map { "\($0)-\(digests[picks[1 + $0] % 3])" }
        var properties: BLIPProperties = ["Profile": "rev", "id": "doc-\(picks[0] % 3)", "rev": revisions[0]]
        if revisions.count > 1 { properties["history"] = revisions.dropFirst().joined(separator: ",") }
        if picks[5] % 2 == 0 { properties["noconflicts"] = "1" }
        let body = picks[5] % 5 == 4 ? "[1]" : #"{"n":\#(picks[5])}"#
        return BLIPMessage(compressed: true, properties: properties, body: Array(body.utf8))
    }

    /// Sends the requests one after another to a passive session over `core`; each reply as
    /// "ok" or its error domain and code.
    static func replies(to requests: [BLIPMessage], core: DatabaseCore, fromInserter: Bool) async -> [String] {
        let (clientEnd, serverEnd) = InMemoryBLIPTransport.pair()
        let session = ReplicationSession(database: core, connection: BLIPConnection(transport: serverEnd),
                                         role: .passive(readOnly: false), conflictResolver: nil,
                                         answersRevisionsFromInserter: fromInserter, onEvent: { _ in })
        let server = Task { await session.serve() }
        let client = BLIPConnection(transport: clientEnd)
        client.start()
        var replies: [String] = []
        for request in requests {
            do {
                _ = try await client.sendRequest(request)
                replies.append("ok")
            } catch let BLIPError.remote(domain, code, _) {
                replies.append("\(domain) \(code)")
            } catch {
                replies.append("failed: \(error)")
            }
        }
        await client.close()
        _ = await server.value
        return replies
    }

    /// Each document's revisions (ID, leaf, deletion, conflict) and current revision.
    static func documents(_ core: DatabaseCore) throws -> [String] {
        try (0..<3).map { index in
            guard let document = try core.document(id: "doc-\(index)") else { return "none" }
            let revisions = document.tree.revisions.map { revision in
                "\(revision.id.string)\(revision.isLeaf ? " leaf" : "")\(revision.isDeleted ? " deleted" : "")"
                    + "\(revision.isConflict ? " conflict" : "")"
            }
            return revisions.joined(separator: ", ") + "; current \(document.revisionID?.string ?? "none")"
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func answersAndSavesAsATaskPerRevisionDoes(engine: StorageEngineKind) async {
        let pushes = Gen.int(in: 0...1_000).array(of: 6...6).array(of: 1...10)
        await propertyCheck(count: 40, input: pushes) { pushes in
            let requests = pushes.map(Self.request)
            try await withReplicatorCore(engine) { fromInserter in
                try await withReplicatorCore(engine) { inTasks in
                    let fast = await Self.replies(to: requests, core: fromInserter, fromInserter: true)
                    let slow = await Self.replies(to: requests, core: inTasks, fromInserter: false)
                    #expect(fast == slow)
                    let saved = try Self.documents(fromInserter), savedInTasks = try Self.documents(inTasks)
                    #expect(saved == savedInTasks)
                }
            }
        }
    }

    /// Revisions answered from the inserter have no task the session waits for: `serve()` must
    /// still wait until what arrived is saved, so nothing is written after it returns.
    @Test(arguments: StorageEngineKind.allCases)
    func nothingIsSavedAfterTheSessionEnds(engine: StorageEngineKind) async throws {
        try await withReplicatorCore(engine) { core in
            let (clientEnd, serverEnd) = InMemoryBLIPTransport.pair()
            let session = ReplicationSession(database: core, connection: BLIPConnection(transport: serverEnd),
                                             role: .passive(readOnly: false))
            let server = Task { await session.serve() }
            let client = BLIPConnection(transport: clientEnd)
            client.start()
            let sends = (0..<300).map { number in
                Task {
                    _ = try? await client.sendRequest(BLIPMessage(properties: [  // allowed: the close fails the later ones
                        "Profile": "rev", "id": "doc-\(number)", "rev": "1-" + String(repeating: "a", count: 40),
                    ], body: Array(#"{"n":1}"#.utf8)))
                }
            }
            _ = await sends[0].value
            await client.close()
            _ = await server.value
            let countWhenServeReturned = try core.documentCount()
            for send in sends { _ = await send.value }
            // Whatever the inserter still held when serve() returned is written by now: a
            // serve() that returned early shows as a count that grew.
            await session.inserter.waitUntilIdle()
            #expect(try core.documentCount() == countWhenServeReturned)
            #expect(countWhenServeReturned >= 1)
        }
    }
}
