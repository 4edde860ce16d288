import BLIP
import DatabaseTools
import Fleece
import Foundation
import LiteDatabase
import LiteReplicator
import Testing
import TestSupport

/// Our passive side fed the real Couchbase Lite 2.8 client's messages from the captures: it
/// must answer as the real 2.8 listener did (same kind, properties and bodies).
@Suite(.ownThreads) struct ListenerReplayTests {
    /// Expects every reply of ours to equal the real server's.
    func expectSameReplies(_ replay: ListenerReplay, _ name: String, sourceLocation: SourceLocation = #_sourceLocation) {
        for exchange in replay.exchanges {
            let profile = exchange.request.profile ?? "?"
            guard let theirs = exchange.theirs else { continue }
            if let ourError = exchange.ourError {
                guard case .remote(let domain, let code, _) = ourError, theirs.kind == .error else {
                    Issue.record("\(name) \(profile) #\(exchange.request.number): we failed with \(ourError), 2.8 answered \(theirs.properties)",
                                 sourceLocation: sourceLocation)
                    continue
                }
                #expect(domain == theirs.properties["Error-Domain"] && String(code) == theirs.properties["Error-Code"],
                        "\(name) \(profile) #\(exchange.request.number)", sourceLocation: sourceLocation)
                continue
            }
            guard let ours = exchange.ours else { continue }
            #expect(theirs.kind == .reply, "\(name) \(profile): 2.8 answered \(theirs.properties), we replied",
                    sourceLocation: sourceLocation)
            #expect(ours.properties == theirs.properties, "\(name) \(profile) #\(exchange.request.number) properties",
                    sourceLocation: sourceLocation)
            #expect(sameBody(ours.body, theirs.body),
                    "\(name) \(profile) #\(exchange.request.number): ours \(String(decoding: ours.body, as: UTF8.self)) vs 2.8 \(String(decoding: theirs.body, as: UTF8.self))",
                    sourceLocation: sourceLocation)
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func push50Docs(engine: StorageEngineKind) async throws {
        try await withReplicatorCore(engine) { core in
            let replay = try await ListenerReplay.run(CapturedReplication("push-50-docs"), against: core)
            #expect(replay.exchanges.count == 53)
            expectSameReplies(replay, "push-50-docs")
            #expect(try core.documentCount() == 50)
            // The revision IDs are the real client's.
            #expect(try core.document(id: "doc-01")?.revisionID?.string == "1-e90e816011a68e936484a0635d96d249d0e095e6")
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func pull50DocsFromWhatWasPushed(engine: StorageEngineKind) async throws {
        try await withReplicatorCore(engine) { core in
            _ = try await ListenerReplay.run(CapturedReplication("push-50-docs"), against: core)
            let replay = try await ListenerReplay.run(CapturedReplication("pull-50-docs"), against: core)
            expectSameReplies(replay, "pull-50-docs")
            // What our server sent: the same profiles, the same change entries, the same revs.
            #expect(replay.ourRequests.map { $0.profile ?? "" }.sorted() == replay.theirRequests.map { $0.profile ?? "" }.sorted())
            let ourChanges = changeEntries(replay.ourRequests)
            let theirChanges = changeEntries(replay.theirRequests)
            #expect(ourChanges.count == 50)
            #expect(ourChanges.map(\.id) == theirChanges.map(\.id) && ourChanges.map(\.rev) == theirChanges.map(\.rev))
            #expect(ourChanges.map(\.size) == theirChanges.map(\.size), "bodySize is the stored record's size")
            for theirs in replay.theirRequests where theirs.profile == "rev" {
                let ours = try #require(replay.ourRequests.first { $0.profile == "rev" && $0.properties["id"] == theirs.properties["id"] })
                #expect(ours.properties["rev"] == theirs.properties["rev"])
                #expect(ours.properties["history"] == theirs.properties["history"])
                #expect(sameBody(ours.body, theirs.body), "rev \(theirs.properties["id"] ?? "")")
            }
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func push3BlobsAsksForEachBlobAsCouchbaseLiteDoes(engine: StorageEngineKind) async throws {
        try await withReplicatorCore(engine) { core in
            let replay = try await ListenerReplay.run(CapturedReplication("push-3-blobs"), against: core)
            expectSameReplies(replay, "push-3-blobs")
            let ours = replay.ourRequests.filter { $0.profile == "getAttachment" }
                .map { "\($0.properties["digest"] ?? "") \($0.properties["compress"] ?? "-")" }
            let theirs = replay.theirRequests.filter { $0.profile == "getAttachment" }
                .map { "\($0.properties["digest"] ?? "") \($0.properties["compress"] ?? "-")" }
            #expect(ours.sorted() == theirs.sorted())
            #expect(try core.documentCount() == 3)
            #expect(try core.referencedBlobKeys().count == 4)
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func pushOfExistingAndConflictingDocuments(engine: StorageEngineKind) async throws {
        try await withReplicatorCore(engine) { core in
            let setup = try await ListenerReplay.run(CapturedReplication("push-existing-and-conflict.setup"), against: core)
            expectSameReplies(setup, "setup")
            #expect(try core.documentCount() == 30)
            // A second 2.8 client, not captured, imported small31_40 into a new database and
            // pushed it: the same JSON in a new database gives the same revision IDs as the
            // capture's client computed (its doc-31..40 then come back 304).
            try await pushFromNewDatabase(lines: "blip/captures-2.8/inputs/small31_40.json", to: core, engine: engine)
            #expect(try core.documentCount() == 40)
            // The server's own edit of doc-07 (2.8's `cblite put`); any new revision conflicts.
            let current = try #require(try core.document(id: "doc-07")?.revisionID)
            try core.saveRevision(id: "doc-07", base: current, policy: .failOnConflict) { encoder in
                try Array(#"{"edited":"on the server"}"#.utf8).withUnsafeBytes { try JSONConverter.write(json: $0, to: encoder) }
            }
            let replay = try await ListenerReplay.run(CapturedReplication("push-existing-and-conflict"), against: core)
            expectSameReplies(replay, "push-existing-and-conflict")
            #expect(try core.documentCount() == 50)
        }
    }

    /// Imports JSON lines (`_id` = document ID) into a new database and pushes them to `core`
    /// with our active replicator over an in-memory connection.
    func pushFromNewDatabase(lines path: String, to core: DatabaseCore, engine: StorageEngineKind) async throws {
        try await withReplicatorCore(engine) { source in
            // As the real client did: 2.8's `cblite cp` of the JSON Lines (our import makes the
            // same bodies, so the same revision IDs).
            try DocumentImporter.importDocuments(into: source, from: Fixtures.url(path).path)
            let (clientEnd, serverEnd) = InMemoryBLIPTransport.pair()
            let passive = ReplicationSession(database: core, connection: BLIPConnection(transport: serverEnd),
                                             role: .passive(readOnly: false))
            let server = Task { await passive.serve() }
            let active = ReplicationSession(database: source, connection: BLIPConnection(transport: clientEnd),
                                            role: .active(ReplicationOptions(push: true, pull: false, remoteURL: "ws://second-client")))
            try await active.runActive()
            _ = await server.value
        }
    }

    func changeEntries(_ requests: [BLIPMessage]) -> [(id: String, rev: String, size: Int)] {
        requests.filter { $0.profile == "changes" }.flatMap { message -> [(id: String, rev: String, size: Int)] in
            let list = (try? JSONSerialization.jsonObject(with: Data(message.body)) as? [[Any]]) ?? []
            return list.map { ($0[1] as? String ?? "", $0[2] as? String ?? "", ($0.count > 4 ? $0[4] as? Int : nil) ?? -1) }
        }.sorted { $0.id < $1.id }
    }
}

/// A new database core with `engine`, for replication tests.
func withReplicatorCore<T>(_ engine: StorageEngineKind, _ body: (DatabaseCore) async throws -> T) async throws -> T {
    let directory = try TemporaryDirectory()
    let registry = StorageEngineRegistry(engines: [engine.engine, engine.other.engine])
    let core = try DatabaseCore(bundle: DatabaseBundle(name: "server", directory: directory.path), registry: registry,
                                engineName: engine.engine.name)
    do {
        let result = try await body(core)
        try core.close()
        withExtendedLifetime(directory) {}
        return result
    } catch {
        try? core.close()
        throw error
    }
}
