import BLIP
import Fleece
import LiteDatabase
import LiteSupport
import Testing
import TestSupport
@testable import LiteReplicator

/// The two ways long soak runs lost documents (docs/reliability.md), each with its fault injected
/// at the exact point: a push reply lost with the connection after the server saved the
/// revision, and a pulled history that does not reach the local tree.
@Suite(.ownThreads) struct ConnectionFaultTests {
    // MARK: A push reply lost with the connection

    @Test(arguments: StorageEngineKind.allCases)
    func aRevisionWhoseReplyWasLostBecomesTheParentOfTheNextProposal(engine: StorageEngineKind) async throws {
        try await withClientAndServer(engine) { client, server in
            // Push only: no listing from the server can correct the client.
            let options = ReplicationOptions(push: true, pull: false, remoteURL: "ws://server/db")
            _ = try PushProgressTests.save(client, "a", #"{"n":1}"#)
            #expect(await replicate(client, server, options: options).error == nil)
            let second = try #require(try PushProgressTests.save(client, "a", #"{"n":2}"#).revisionID)
            let lost = await replicate(client, server, options: options, dropWhen: Self.firstReply(after: second, of: "a", in: server))
            #expect(lost.error != nil)
            #expect(try server.document(id: "a")?.revisionID == second, "the server saved it")
            #expect(try client.document(id: "a")?.tree.remoteRevision(1)?.id != second, "the client never heard")

            let third = try #require(try PushProgressTests.save(client, "a", #"{"n":3}"#).revisionID)
            let run = await replicate(client, server, options: options)
            #expect(run.error == nil)
            #expect(run.ended.filter { $0.error != nil }.isEmpty, "no refusal: \(run.ended.compactMap(\.error))")
            #expect(try server.document(id: "a")?.revisionID == third)
            #expect(try client.document(id: "a")?.tree.remoteRevision(1)?.id == third)
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func afterARestartTheRefusedProposalGoesAgainOnceThePullListsTheServersRevision(engine: StorageEngineKind) async throws {
        try await withClientAndServer(engine) { client, server in
            let pushOnly = ReplicationOptions(push: true, pull: false, remoteURL: "ws://server/db")
            _ = try PushProgressTests.save(client, "a", #"{"n":1}"#)
            #expect(await replicate(client, server, options: pushOnly).error == nil)
            let second = try #require(try PushProgressTests.save(client, "a", #"{"n":2}"#).revisionID)
            #expect(await replicate(client, server, options: pushOnly,
                                    dropWhen: Self.firstReply(after: second, of: "a", in: server)).error != nil)
            let third = try #require(try PushProgressTests.save(client, "a", #"{"n":3}"#).revisionID)
            // A new process: the memory of unconfirmed revisions is gone; the pull corrects it
            // (as LiteCore's pusher retries conflicts once its puller has caught up).
            let run = await replicate(client, server, options: ReplicationOptions(push: true, pull: true, remoteURL: "ws://server/db"))
            #expect(run.error == nil)
            #expect(try server.document(id: "a")?.revisionID == third)
            try expectSame(client, server, ["a"])
        }
    }

    // MARK: A pulled history that does not reach the local tree

    @Test(arguments: StorageEngineKind.allCases)
    func aPulledDeletionWhoseHistoryDoesNotReachTheLocalRevisionWins(engine: StorageEngineKind) async throws {
        try await withClientAndServer(engine) { client, server in
            let pull = ReplicationOptions(push: false, pull: true, remoteURL: "ws://server/db")
            var revision = try #require(try PushProgressTests.save(server, "s", #"{"n":0}"#).revisionID)
            #expect(await replicate(client, server, options: pull).error == nil)
            // More updates than the history a revision carries (20), then a deletion.
            for n in 1...25 { revision = try #require(try PushProgressTests.save(server, "s", "{\"n\":\(n)}").revisionID) }
            let deletion = try #require(try server.saveRevision(id: "s", base: revision, deleted: true,
                                                                policy: .failOnConflict) { _ in })
            #expect(await replicate(client, server, options: pull).error == nil)
            let pulled = try #require(try client.document(id: "s"))
            #expect(pulled.revisionID == deletion.revisionID, "the older local branch must not win")
            #expect(pulled.isDeleted)

            // And nothing is offered back: the server's deletion stays.
            let both = ReplicationOptions(push: true, pull: true, remoteURL: "ws://server/db")
            let run = await replicate(client, server, options: both)
            #expect(run.error == nil)
            #expect(run.ended.filter(\.isPush).isEmpty, "pushed back: \(run.ended.filter(\.isPush).map(\.revisionID))")
            #expect(try server.document(id: "s")?.revisionID == deletion.revisionID)
            try expectSame(client, server, ["s"])
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func aServerRevisionWhoseHistoryDoesNotReachThePulledDeletionReplacesIt(engine: StorageEngineKind) async throws {
        try await withClientAndServer(engine) { client, server in
            let pull = ReplicationOptions(push: false, pull: true, remoteURL: "ws://server/db")
            var revision = try #require(try PushProgressTests.save(server, "s", #"{"n":0}"#).revisionID)
            #expect(await replicate(client, server, options: pull).error == nil)
            revision = try #require(try server.saveRevision(id: "s", base: revision, deleted: true,
                                                            policy: .failOnConflict) { _ in }?.revisionID)
            #expect(await replicate(client, server, options: pull).error == nil)
            #expect(try client.document(id: "s")?.isDeleted == true)
            // The server's writer makes the document again and changes it more often than a
            // history carries: the client's deletion is only the server's old revision, not a
            // local change, so the server's revision must replace it (found by the 600 s soak).
            for n in 1...25 { revision = try #require(try PushProgressTests.save(server, "s", "{\"n\":\(n)}").revisionID) }
            let both = ReplicationOptions(push: true, pull: true, remoteURL: "ws://server/db")
            let run = await replicate(client, server, options: both)
            #expect(run.error == nil)
            #expect(run.ended.filter(\.isPush).isEmpty, "pushed back: \(run.ended.filter(\.isPush).map(\.revisionID))")
            #expect(try server.document(id: "s")?.revisionID == revision)
            #expect(try server.document(id: "s")?.isDeleted == false)
            try expectSame(client, server, ["s"])
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func aLocalDeletionSurvivesAnOlderServerRevisionPulledBelowIt(engine: StorageEngineKind) async throws {
        try await withClientAndServer(engine) { client, server in
            let pushOnly = ReplicationOptions(push: true, pull: false, remoteURL: "ws://server/db")
            var revision = try #require(try PushProgressTests.save(client, "c", #"{"n":1}"#).revisionID)
            #expect(await replicate(client, server, options: pushOnly).error == nil)
            revision = try #require(try PushProgressTests.save(client, "c", #"{"n":2}"#).revisionID)
            #expect(await replicate(client, server, options: pushOnly,
                                    dropWhen: Self.firstReply(after: revision, of: "c", in: server)).error != nil)
            // The client moves on further than its tree keeps (20), then deletes the document:
            // the revision the server has is pruned here.
            for n in 3...27 { revision = try #require(try PushProgressTests.save(client, "c", "{\"n\":\(n)}").revisionID) }
            _ = try #require(try client.saveRevision(id: "c", base: revision, deleted: true, policy: .failOnConflict) { _ in })

            // A new process pushes and pulls: the server's older revision arrives as a branch
            // below the deletion, and the deletion must win on both sides.
            let run = await replicate(client, server, options: ReplicationOptions(push: true, pull: true, remoteURL: "ws://server/db"))
            #expect(run.error == nil)
            #expect(try client.document(id: "c")?.isDeleted == true)
            #expect(try server.document(id: "c")?.isDeleted == true)
            try expectSame(client, server, ["c"])
        }
    }

    // MARK: Helpers

    /// A fault that fires at the first reply the server sends once it holds `revision` of `id`:
    /// the reply to that `rev` (the push is one-shot and push-only, so nothing else is answered
    /// in between).
    static func firstReply(after revision: RevisionID, of id: String, in server: DatabaseCore) -> @Sendable ([UInt8]) -> Bool {
        { frame in
            FaultInjectingTransport.frameType(frame) == 1
                && (try? server.document(id: id)?.revisionID) == revision  // allowed: a failed read is "not yet"
        }
    }
}

/// Runs one active session of `client` against a passive session of `server` over an in-memory
/// pair, the server's end dropping the connection where `fault` says. Returns the documents the
/// client reported and the error its session ended with.
func replicate(_ client: DatabaseCore, _ server: DatabaseCore, options: ReplicationOptions,
               dropWhen fault: (@Sendable ([UInt8]) -> Bool)? = nil) async -> (ended: [ReplicatedDocument], error: (any Error)?) {
    let (local, remote) = InMemoryBLIPTransport.pair()
    let serverTransport: any BLIPTransport = fault.map { FaultInjectingTransport(remote, dropWhen: $0) } ?? remote
    let passive = ReplicationSession(database: server, connection: BLIPConnection(transport: serverTransport),
                                     role: .passive(readOnly: false))
    let serving = Task { await passive.serve() }
    let ended = Locked<[ReplicatedDocument]>([])
    let active = ReplicationSession(database: client, connection: BLIPConnection(transport: local), role: .active(options),
                                    onEvent: { event in
        if case .documentsEnded(let documents) = event { ended.withLock { $0 += documents } }
    })
    var failure: (any Error)?
    do { try await active.runActive() } catch { failure = error }
    _ = await serving.value
    return (ended.withLock { $0 }, failure)
}

/// Two databases of `engine`: the client and the server.
func withClientAndServer(_ engine: StorageEngineKind,
                         _ body: (_ client: DatabaseCore, _ server: DatabaseCore) async throws -> Void) async throws {
    try await withReplicatorCore(engine) { server in
        try await withReplicatorCore(engine) { client in try await body(client, server) }
    }
}

/// Both databases hold the same current revision (and deletion state) of each document.
func expectSame(_ client: DatabaseCore, _ server: DatabaseCore, _ ids: [String],
                sourceLocation: SourceLocation = #_sourceLocation) throws {
    for id in ids {
        let mine = try client.document(id: id), theirs = try server.document(id: id)
        #expect(mine?.revisionID == theirs?.revisionID, "\(id)", sourceLocation: sourceLocation)
        #expect(mine?.isDeleted == theirs?.isDeleted, "\(id)", sourceLocation: sourceLocation)
    }
}
