import BLIP
import DatabaseTools
import Foundation
import LiteDatabase
import LiteReplicator
import Testing
import TestSupport

/// Our active replicator against the real 2.8 server's side of the captures: it must send the
/// same requests (properties and bodies, but for the checkpoint ID and time) and end with the
/// same documents.
@Suite(.ownThreads) struct ReplicatorReplayTests {
    /// Properties that legitimately differ: the checkpoint ID hashes the database's UUID.
    func comparable(_ properties: BLIPProperties) -> [String] {
        properties.pairs.filter { $0.key != "client" }.map { "\($0.key)=\($0.value)" }
    }

    /// A body as canonical JSON (sorted keys; checkpoint bodies without their time), or its bytes.
    func comparableBody(_ message: BLIPMessage) -> String {
        guard var object = try? JSONSerialization.jsonObject(with: Data(message.body), options: [.fragmentsAllowed]) else {
            return message.body.map { String(format: "%02x", $0) }.joined()
        }
        if var dictionary = object as? [String: Any] {
            dictionary.removeValue(forKey: "time")
            object = dictionary
        }
        let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .fragmentsAllowed])
        return data.map { String(decoding: $0, as: UTF8.self) } ?? ""
    }

    func expectSameRequests(_ replay: ReplicatorReplay, sourceLocation: SourceLocation = #_sourceLocation) {
        // A compatible order: the same requests, the same first and last; revisions go out
        // concurrently (as in 2.8, up to ten in flight), so they are compared by document.
        let profiles = { (requests: [BLIPMessage]) in requests.map { $0.profile ?? "" } }
        #expect(profiles(replay.ourRequests).sorted() == profiles(replay.theirRequests).sorted(), sourceLocation: sourceLocation)
        #expect(profiles(replay.ourRequests).first == profiles(replay.theirRequests).first, sourceLocation: sourceLocation)
        #expect(profiles(replay.ourRequests).last == profiles(replay.theirRequests).last, sourceLocation: sourceLocation)
        let key = { (message: BLIPMessage) in "\(message.profile ?? "") \(message.properties["id"] ?? "")" }
        let ours = replay.ourRequests.enumerated().sorted { (key($0.element), $0.offset) < (key($1.element), $1.offset) }.map(\.element)
        let theirs = replay.theirRequests.enumerated().sorted { (key($0.element), $0.offset) < (key($1.element), $1.offset) }.map(\.element)
        for (ours, theirs) in zip(ours, theirs) {
            #expect(comparable(ours.properties) == comparable(theirs.properties), sourceLocation: sourceLocation)
            #expect(comparableBody(ours) == comparableBody(theirs), "\(ours.profile ?? "")", sourceLocation: sourceLocation)
        }
        for (request, ours, theirs) in replay.replies {
            #expect(ours != nil, "no reply of ours to \(request.profile ?? "")", sourceLocation: sourceLocation)
            if let ours, let theirs {
                #expect(ours.properties == theirs.properties && ours.body == theirs.body,
                        "reply to \(request.profile ?? "") #\(request.number)", sourceLocation: sourceLocation)
            }
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func push50Docs(engine: StorageEngineKind) async throws {
        try await withReplicatorCore(engine) { client in
            try DocumentImporter.importDocuments(into: client, from: Fixtures.url("blip/captures-2.8/inputs/small50.json").path)
            let replay = try await ReplicatorReplay.run(CapturedReplication("push-50-docs"), connection: 1, client: client,
                                                        options: ReplicationOptions(push: true, pull: false, remoteURL: "ws://127.0.0.1:59851/server"))
            expectSameRequests(replay)
            #expect(try client.changes(since: 0).allSatisfy { $0.flags.contains(.synced) })
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func pull50Docs(engine: StorageEngineKind) async throws {
        try await withReplicatorCore(engine) { client in
            let replay = try await ReplicatorReplay.run(CapturedReplication("pull-50-docs"), connection: 1, client: client,
                                                        options: ReplicationOptions(push: false, pull: true, remoteURL: "ws://127.0.0.1:59851/server"))
            expectSameRequests(replay)
            #expect(try client.documentCount() == 50)
            #expect(try client.document(id: "doc-01")?.revisionID?.string == "1-e90e816011a68e936484a0635d96d249d0e095e6")
        }
    }
}
