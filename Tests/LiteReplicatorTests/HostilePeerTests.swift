import BLIP
import BlobStore
import Fleece
import Foundation
import LiteDatabase
import LiteSupport
import Testing
import TestSupport
@testable import LiteReplicator

/// A hostile peer, written by hand as an attacker would (raw BLIP requests and replies, not our
/// own replicator), against both sides of a replication (issue 37): it must not purge, must
/// not get a direction that is not enabled, must not make the checkpoint skip a revision, and
/// must not exhaust the disk, the memory or the tasks of the side it talks to.
@Suite(.ownThreads) struct HostilePeerTests {
    // MARK: Harness

    static func save(_ core: DatabaseCore, id: String, json: String) throws {
        try core.saveRevision(id: id, base: nil, policy: .failOnConflict) { encoder in
            try Array(json.utf8).withUnsafeBytes { try JSONConverter.write(json: $0, to: encoder) }
        }
    }

    static func blobJSON(_ key: BlobKey, length: Int?) -> String {
        #"{"file":{"@type":"blob","digest":"\#(key.string)""# + (length.map { #","length":\#($0)"# } ?? "") + "}}"
    }

    static let revisionDigest = String(repeating: "a", count: 40)

    /// "ok", or the error reply's domain and code, or how sending failed.
    static func outcome(_ send: () async throws -> BLIPMessage) async -> String {
        do {
            _ = try await send()
            return "ok"
        } catch let BLIPError.remote(domain, code, _) {
            return "\(domain) \(code)"
        } catch {
            return "failed: \(error)"
        }
    }

    /// A passive session (a listener's) on `core`, and the hostile client's connection to it.
    struct Listener {
        let session: ReplicationSession
        let server: Task<BLIPError?, Never>
        let peer: BLIPConnection
        let refusals: Locked<[String]>

        init(_ core: DatabaseCore, readOnly: Bool = false, limits: ReplicationLimits = ReplicationLimits()) {
            let (clientEnd, serverEnd) = InMemoryBLIPTransport.pair()
            let refusals = Locked<[String]>([])
            let session = ReplicationSession(database: core, connection: BLIPConnection(transport: serverEnd),
                                             role: .passive(readOnly: readOnly), conflictResolver: nil, limits: limits) { event in
                if case .refused(let message) = event { refusals.withLock { $0.append(message) } }
            }
            self.session = session
            self.refusals = refusals
            server = Task { await session.serve() }
            peer = BLIPConnection(transport: clientEnd)
            peer.start()
        }

        func send(_ properties: BLIPProperties, body: String = "") async -> String {
            await HostilePeerTests.outcome { try await peer.sendRequest(BLIPMessage(properties: properties, body: Array(body.utf8))) }
        }

        func finish() async {
            await peer.close()
            _ = await server.value
        }
    }

    /// A hand-written server for an active session: answers `getCheckpoint` with `checkpoint`
    /// (404 when nil) after running `beforeCheckpoint` (the hostile part, while the client is
    /// surely serving), `subChanges` by running `onSubChanges` and then saying "caught up",
    /// `setCheckpoint` by recording it; every request the client sends is recorded.
    final class HandWrittenServer: Sendable {
        let connection: BLIPConnection
        let received = Locked<[BLIPMessage]>([])
        let savedCheckpoints = Locked<[[UInt8]]>([])
        private let loop = Locked<Task<Void, Never>?>(nil)

        init(connection: BLIPConnection, checkpoint: [UInt8]? = nil,
             beforeCheckpoint: @escaping @Sendable (BLIPConnection) async -> Void = { _ in },
             onSubChanges: @escaping @Sendable (BLIPConnection, BLIPMessage) async -> Void = { _, _ in },
             onGetAttachment: @escaping @Sendable (BLIPIncomingRequest) async -> Void = {
                 await $0.respondError(domain: "HTTP", code: 404, message: "no")
             }) {
            self.connection = connection
            connection.start()
            let task = Task { [received, savedCheckpoints] in
                for await request in connection.requests {
                    let message = request.message
                    received.withLock { $0.append(message) }
                    switch message.profile {
                    case "getCheckpoint":
                        await beforeCheckpoint(connection)
                        if let checkpoint {
                            await request.respond(properties: ["rev": "1-cp"], body: checkpoint)
                        } else {
                            await request.respondError(domain: "HTTP", code: 404, message: "missing")
                        }
                    case "setCheckpoint":
                        savedCheckpoints.withLock { $0.append(message.body) }
                        await request.respond(properties: ["rev": "2-cp"])
                    case "subChanges":
                        await request.respond()
                        Task {
                            await onSubChanges(connection, message)
                            _ = try? await connection.sendRequest(BLIPMessage(  // allowed: the client may be gone
                                properties: ["Profile": "changes"], body: Array("[]".utf8)))
                        }
                    case "getAttachment":
                        Task { await onGetAttachment(request) }
                    case "changes", "proposeChanges":
                        await request.respond(body: Array("[]".utf8))
                    default:
                        await request.respond()
                    }
                }
            }
            loop.withLock { $0 = task }
        }

        func profiles() -> [String] { received.withLock { $0.compactMap(\.profile) } }

        func finish() async {
            await connection.close()
            loop.withLock { $0 }?.cancel()
        }
    }

    /// Runs an active session with `options` on `core` against a hand-written server.
    static func runActive(_ core: DatabaseCore, options: ReplicationOptions, limits: ReplicationLimits = ReplicationLimits(),
                          server makeServer: (BLIPConnection) -> HandWrittenServer) async throws -> HandWrittenServer {
        let (clientEnd, serverEnd) = InMemoryBLIPTransport.pair()
        let server = makeServer(BLIPConnection(transport: serverEnd))
        let client = ReplicationSession(database: core, connection: BLIPConnection(transport: clientEnd),
                                        role: .active(options), conflictResolver: nil, limits: limits)
        defer { Task { await server.finish() } }
        try await client.runActive()
        return server
    }

    // MARK: 1. `_removed` pushed to a listener

    @Test(arguments: StorageEngineKind.allCases)
    func aRemovedNoticePushedToAListenerPurgesNothing(engine: StorageEngineKind) async throws {
        try await withReplicatorCore(engine) { core in
            try Self.save(core, id: "doc", json: #"{"keep":true}"#)
            let current = try #require(try core.document(id: "doc")?.revisionID)
            let listener = Listener(core)
            let reply = await listener.send(["Profile": "rev", "id": "doc", "rev": "2-" + Self.revisionDigest,
                                             "history": current.string], body: #"{"_removed":true}"#)
            await listener.finish()
            #expect(reply == "HTTP 403")
            let after = try core.document(id: "doc")
            #expect(after?.revisionID == current)
            #expect(listener.refusals.withLock { $0.contains { $0.contains("_removed") } })
        }
    }

    // MARK: 2. Directions that are not enabled

    @Test(arguments: StorageEngineKind.allCases)
    func aPullOnlyClientPushesNothingWhenTheServerAsks(engine: StorageEngineKind) async throws {
        try await withReplicatorCore(engine) { core in
            let key = try core.blobStore.write(Array("private".utf8))
            try Self.save(core, id: "secret", json: Self.blobJSON(key, length: 7))
            let answers = Locked<[String]>([])
            let server = try await Self.runActive(core, options: ReplicationOptions(push: false, pull: true, remoteURL: "ws://evil")) {
                HandWrittenServer(connection: $0, beforeCheckpoint: { connection in
                    let subChanges = await Self.outcome {
                        try await connection.sendRequest(BLIPMessage(properties: ["Profile": "subChanges"]))
                    }
                    let blob = await Self.outcome {
                        try await connection.sendRequest(BLIPMessage(properties: ["Profile": "getAttachment", "digest": key.string]))
                    }
                    let proof = await Self.outcome {
                        try await connection.sendRequest(BLIPMessage(properties: ["Profile": "proveAttachment", "digest": key.string],
                                                                     body: Array("nonce".utf8)))
                    }
                    answers.withLock { $0 = [subChanges, blob, proof] }
                })
            }
            #expect(answers.withLock { $0 } == ["HTTP 403", "HTTP 403", "HTTP 403"])
            #expect(!server.profiles().contains { ["changes", "proposeChanges", "rev"].contains($0) })
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func aPushOnlyClientStoresNothingTheServerSends(engine: StorageEngineKind) async throws {
        try await withReplicatorCore(engine) { core in
            let answers = Locked<[String]>([])
            _ = try await Self.runActive(core, options: ReplicationOptions(push: true, pull: false, remoteURL: "ws://evil")) {
                HandWrittenServer(connection: $0, beforeCheckpoint: { connection in
                    let changes = await Self.outcome {
                        try await connection.sendRequest(BLIPMessage(properties: ["Profile": "changes"],
                                                                     body: Array(#"[[1,"planted","1-\#(Self.revisionDigest)"]]"#.utf8)))
                    }
                    let revision = await Self.outcome {
                        try await connection.sendRequest(BLIPMessage(
                            properties: ["Profile": "rev", "id": "planted", "rev": "1-" + Self.revisionDigest, "sequence": "1"],
                            body: Array(#"{"planted":true}"#.utf8)))
                    }
                    answers.withLock { $0 = [changes, revision] }
                })
            }
            #expect(answers.withLock { $0 } == ["HTTP 403", "HTTP 403"])
            #expect(try core.document(id: "planted") == nil)
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func aReadOnlyListenerKeepsNoCheckpointAndTakesNoRevision(engine: StorageEngineKind) async throws {
        try await withReplicatorCore(engine) { core in
            let listener = Listener(core, readOnly: true)
            let checkpoint = await listener.send(["Profile": "setCheckpoint", "client": "intruder"], body: #"{"local":1}"#)
            let revision = await listener.send(["Profile": "rev", "id": "planted", "rev": "1-" + Self.revisionDigest],
                                               body: #"{"planted":true}"#)
            let reading = await listener.send(["Profile": "getCheckpoint", "client": "intruder"])
            await listener.finish()
            #expect([checkpoint, revision, reading] == ["HTTP 403", "HTTP 403", "HTTP 404"])
            let stored = try CheckpointStore(core: core).peerCheckpoint(id: "intruder")
            #expect(stored == nil)
            let planted = try core.document(id: "planted")
            #expect(planted == nil)
        }
    }

    /// Our own pull-only client still completes against a read-only listener (it refuses the
    /// checkpoint; the client then starts over next time, as with a peer that lost it).
    @Test(arguments: StorageEngineKind.allCases)
    func ourPullFromAReadOnlyListenerCompletes(engine: StorageEngineKind) async throws {
        try await withReplicatorCore(engine) { server in
            for number in 0..<5 { try Self.save(server, id: "doc-\(number)", json: #"{"n":\#(number)}"#) }
            try await withReplicatorCore(engine.other) { client in
                let (clientEnd, serverEnd) = InMemoryBLIPTransport.pair()
                let passive = ReplicationSession(database: server, connection: BLIPConnection(transport: serverEnd),
                                                 role: .passive(readOnly: true))
                let serving = Task { await passive.serve() }
                let active = ReplicationSession(database: client, connection: BLIPConnection(transport: clientEnd),
                                                role: .active(ReplicationOptions(push: false, pull: true, remoteURL: "ws://ro")))
                try await active.runActive()
                _ = await serving.value
                #expect(try client.documentCount() == 5)
            }
        }
    }

    // MARK: 3. A transient failure does not move the checkpoint past the revision

    @Test(arguments: StorageEngineKind.allCases)
    func aRevisionWhoseBlobFailedOnceIsPulledByTheNextReplication(engine: StorageEngineKind) async throws {
        try await withReplicatorCore(engine) { core in
            let content = Array("the blob that failed once".utf8)
            let key = BlobKey(hashing: content)
            let revision = "1-" + Self.revisionDigest
            let options = ReplicationOptions(push: false, pull: true, remoteURL: "ws://flaky")
            let revisionReplies = Locked<[String]>([])
            // Sends sequence 1 (a document with a blob) unless the client starts after it.
            @Sendable func sendChanges(_ connection: BLIPConnection, _ subChanges: BLIPMessage) async {
                guard subChanges.properties["since"] == nil else { return }
                _ = try? await connection.sendRequest(BLIPMessage(  // allowed: checked through the document below
                    properties: ["Profile": "changes"], body: Array(#"[[1,"doc","\#(revision)"]]"#.utf8)))
                let reply = await Self.outcome {
                    try await connection.sendRequest(BLIPMessage(
                        properties: ["Profile": "rev", "id": "doc", "rev": revision, "sequence": "1"],
                        body: Array(Self.blobJSON(key, length: content.count).utf8)))
                }
                revisionReplies.withLock { $0.append(reply) }
            }
            // First pass: the server fails the blob once with a 500.
            let first = try await Self.runActive(core, options: options) {
                HandWrittenServer(connection: $0, onSubChanges: sendChanges, onGetAttachment: {
                    await $0.respondError(domain: "HTTP", code: 500, message: "try again")
                })
            }
            #expect(try core.document(id: "doc") == nil)
            #expect(revisionReplies.withLock { $0 } == ["HTTP 500"])
            let saved = first.savedCheckpoints.withLock { $0 }
            #expect(saved.allSatisfy { ReplicationCheckpoint(json: $0).remote == nil })
            let id = try CheckpointStore(core: core).checkpointID(options: options)
            #expect(try CheckpointStore(core: core).localCheckpoint(id: id)?.remote == nil)
            // Second pass, from the checkpoint the server kept: the blob is served this time.
            _ = try await Self.runActive(core, options: options) {
                HandWrittenServer(connection: $0, checkpoint: saved.last, onSubChanges: sendChanges, onGetAttachment: {
                    await $0.respond(body: content)
                })
            }
            #expect(try core.document(id: "doc")?.revisionID?.string == revision)
            #expect(core.blobStore.contains(key))
        }
    }

    // MARK: 4. Offered changes are not kept by a listener

    @Test(arguments: StorageEngineKind.allCases)
    func aListenerForgetsTheChangesItAnswered(engine: StorageEngineKind) async throws {
        try await withReplicatorCore(engine) { core in
            let listener = Listener(core)
            for batch in 0..<5 {
                let entries = (0..<400).map { #"[\#(batch * 400 + $0),"doc-\#(batch)-\#($0)","1-\#(Self.revisionDigest)"]"# }
                let reply = await listener.send(["Profile": "changes"], body: "[" + entries.joined(separator: ",") + "]")
                #expect(reply == "ok")
            }
            let kept = listener.session.state.withLock { $0.pullTracker.pendingCount }
            await listener.finish()
            #expect(kept == 0)
        }
    }

    // MARK: 5. Blob sizes

    @Test(arguments: StorageEngineKind.allCases)
    func aBlobDeclaredLargerThanTheLimitIsRefusedWithoutAskingForIt(engine: StorageEngineKind) async throws {
        try await withReplicatorCore(engine) { core in
            var limits = ReplicationLimits()
            limits.maxBlobSize = 1 << 20
            let listener = Listener(core, limits: limits)
            let asked = Locked(0)
            let content = [UInt8](repeating: 7, count: 2 << 20)
            let key = BlobKey(hashing: content)
            let answering = Task {
                for await request in listener.peer.requests where request.profile == "getAttachment" {
                    asked.withLock { $0 += 1 }
                    await request.respond(body: content)
                }
            }
            let reply = await listener.send(["Profile": "rev", "id": "big", "rev": "1-" + Self.revisionDigest],
                                            body: Self.blobJSON(key, length: content.count))
            await listener.finish()
            answering.cancel()
            #expect(reply == "HTTP 413")
            #expect(asked.withLock { $0 } == 0)
            let big = try core.document(id: "big")
            #expect(big == nil)
            #expect(!core.blobStore.contains(key))
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func aBlobWithoutALengthIsCutOffAtTheLimit(engine: StorageEngineKind) async throws {
        try await withReplicatorCore(engine) { core in
            var limits = ReplicationLimits()
            limits.maxBlobSize = 1 << 20
            let listener = Listener(core, limits: limits)
            let content = [UInt8](repeating: 9, count: (1 << 20) + 100_000)
            let key = BlobKey(hashing: content)
            let answering = Task {
                for await request in listener.peer.requests where request.profile == "getAttachment" {
                    await request.respond(body: content)
                }
            }
            let reply = await listener.send(["Profile": "rev", "id": "endless", "rev": "1-" + Self.revisionDigest],
                                            body: Self.blobJSON(key, length: nil))
            await listener.finish()
            answering.cancel()
            #expect(reply == "HTTP 413")
            let endless = try core.document(id: "endless")
            #expect(endless == nil)
            #expect(!core.blobStore.contains(key))
            let names = (try? FileManager.default.contentsOfDirectory(atPath: core.blobStore.directory.path)) ?? []
            #expect(!names.contains { $0.hasPrefix(BlobStore.temporaryFilePrefix) })
        }
    }

    // MARK: 6. Bounded tasks per connection

    /// Thirty revisions that each need a blob fetched: at most `maxConcurrentRevisions` are
    /// handled (and ask for their blob) at once; the rest wait in the queue, and all are saved.
    @Test(arguments: StorageEngineKind.allCases)
    func revisionsWaitingOnBlobsAreHandledAFewAtATime(engine: StorageEngineKind) async throws {
        try await withReplicatorCore(engine) { core in
            var limits = ReplicationLimits()
            limits.maxConcurrentRevisions = 4
            let listener = Listener(core, limits: limits)
            let count = 30
            let blobs = (0..<count).map { Array("blob number \($0)".utf8) }
            let byDigest = Dictionary(uniqueKeysWithValues: blobs.map { (BlobKey(hashing: $0).string, $0) })
            // The peer holds its blob replies until the listener has read every revision.
            let held = Locked<(released: Bool, waiting: [BLIPIncomingRequest], outstanding: Int, most: Int)>((false, [], 0, 0))
            let answering = Task {
                for await request in listener.peer.requests where request.profile == "getAttachment" {
                    let answerNow = held.withLock { state -> Bool in
                        state.outstanding += 1
                        state.most = max(state.most, state.outstanding)
                        if !state.released { state.waiting.append(request) }
                        return state.released
                    }
                    if answerNow { Task { await Self.answer(request, byDigest, held) } }
                }
            }
            let replies = ReplyCounter(expected: count)
            for (number, blob) in blobs.enumerated() {
                listener.peer.sendRequest(BLIPMessage(properties: ["Profile": "rev", "id": "doc-\(number)", "rev": "1-" + Self.revisionDigest],
                                                      body: Array(Self.blobJSON(BlobKey(hashing: blob), length: blob.count).utf8)),
                                        onReply: { replies.add($0) })
            }
            // Requests are handled in order: once this is answered, every revision was read.
            _ = await listener.send(["Profile": "getCheckpoint", "client": "probe"])
            let lane = listener.session.revisionLane.counts
            #expect(lane.running == 4 && lane.queued == count - 4)
            let waiting = held.withLock { state -> [BLIPIncomingRequest] in
                state.released = true
                defer { state.waiting.removeAll() }
                return state.waiting
            }
            for request in waiting { Task { await Self.answer(request, byDigest, held) } }
            let watchdog = Task {
                // A time limit, not a wait for work: past it the test fails on the counts below.
                try await Task.sleep(for: .seconds(120))
                await listener.peer.close(code: 1001, reason: "watchdog")
            }
            let outcomes = await replies.all()
            watchdog.cancel()
            await listener.finish()
            answering.cancel()
            #expect(outcomes.filter { $0 == "ok" }.count == count)
            #expect(held.withLock { $0.most } <= 4)
            let saved = try core.documentCount()
            #expect(saved == count)
        }
    }

    /// Each `subChanges` starts a pusher listing the database: a connection gets one.
    @Test(arguments: StorageEngineKind.allCases)
    func aListenerServesOneSubChangesPerConnection(engine: StorageEngineKind) async throws {
        try await withReplicatorCore(engine) { core in
            try Self.save(core, id: "doc", json: #"{"n":1}"#)
            let listener = Listener(core)
            var replies: [String] = []
            for _ in 0..<3 { replies.append(await listener.send(["Profile": "subChanges", "continuous": "true"])) }
            let pushers = listener.session.state.withLock { $0.tasks.count }
            await listener.finish()
            #expect(replies == ["ok", "HTTP 409", "HTTP 409"])
            #expect(pushers <= 1)
        }
    }

    static func answer(_ request: BLIPIncomingRequest, _ blobs: [String: [UInt8]],
                       _ held: Locked<(released: Bool, waiting: [BLIPIncomingRequest], outstanding: Int, most: Int)>) async {
        held.withLock { $0.outstanding -= 1 }
        if let blob = request.message.properties["digest"].flatMap({ blobs[$0] }) {
            await request.respond(body: blob)
        } else {
            await request.respondError(domain: "HTTP", code: 404, message: "no such blob")
        }
    }
}

/// Collects the outcomes of requests sent with a reply callback; ``all()`` waits for them all.
final class ReplyCounter: Sendable {
    private let state = Locked<(outcomes: [String], waiter: CheckedContinuation<[String], Never>?)>(([], nil))
    private let expected: Int

    init(expected: Int) { self.expected = expected }

    func add(_ result: Result<BLIPMessage, any Error>) {
        let outcome: String
        switch result {
        case .success: outcome = "ok"
        case .failure(BLIPError.remote(let domain, let code, _)): outcome = "\(domain) \(code)"
        case .failure(let error): outcome = "failed: \(error)"
        }
        let done = state.withLock { state -> (CheckedContinuation<[String], Never>, [String])? in
            state.outcomes.append(outcome)
            guard state.outcomes.count == expected, let waiter = state.waiter else { return nil }
            state.waiter = nil
            return (waiter, state.outcomes)
        }
        if let done { done.0.resume(returning: done.1) }
    }

    func all() async -> [String] {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> [String]? in
                if state.outcomes.count >= expected { return state.outcomes }
                state.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}
