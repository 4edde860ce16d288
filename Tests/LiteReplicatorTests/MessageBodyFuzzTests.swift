import BLIP
import Fleece
import Foundation
import LiteDatabase
import LiteSupport
import Testing
import TestSupport
@testable import LiteReplicator

/// Fuzzing of what a replication peer sends: revision bodies (JSON screened and encoded into
/// Fleece), and whole request sequences of the real 2.8 client (`getCheckpoint`,
/// `proposeChanges`/`changes`, `rev`, `setCheckpoint`, attachment replies) with mutated bodies
/// and properties, played against our passive side. Every input is handled or refused with an
/// error reply or a closed connection, the database stays consistent and nothing hangs.
@Suite(.ownThreads) struct MessageBodyFuzzTests {
    @Test func mutatedRevisionBodiesAreEncodedOrRefused() throws {
        let capture = try CapturedReplication("push-50-docs")
        let bodies = capture.messages.filter { $0.fromClient && $0.message.profile == "rev" }.map(\.message.body)
        let keys = SharedKeys()
        let campaign = FuzzCampaign.run("replication rev bodies", seed: 0xAE9_0001, inputs: 4000) { random in
            let input = FuzzMutator.mutate(bodies[Int.random(in: 0..<bodies.count, using: &random)], &random,
                                           tokens: [#""_id":"#, #""_deleted":true"#, #""_attachments":{"#, #""digest":"#,
                                                    #""_removed":true"#, "{", "}", "[", "]", ","].map { Array($0.utf8) })
            _ = MessageJSON.decode(input)
            _ = ReplicationSession.normalizedSequence(String(decoding: input.prefix(40), as: UTF8.self))
            do {
                let fleece = try ReplicationDatabase.encodeBody(input, sharedKeys: keys)
                _ = try FleeceDocument(bytes: fleece, sharedKeys: keys)
                return .accepted
            } catch is FleeceError {
                return .rejected
            } catch {
                Issue.record("encodeBody threw \(type(of: error)), not FleeceError")
                return .rejected
            }
        }
        #expect(campaign.accepted > 0 && campaign.rejected > 0)
        #expect(campaign.slowest < FuzzCampaign.perInputLimit)
    }

    /// Delta-sync `rev`s (`deltaSrc` names a revision we have) whose delta bodies are made
    /// between real document bodies and then mutated, sent to a passive session: each is saved
    /// or refused with an error reply, and the database stays consistent (issue 37).
    @Test(arguments: StorageEngineKind.allCases)
    func mutatedDeltaRevisionsAreSavedOrRefused(engine: StorageEngineKind) async throws {
        let capture = try CapturedReplication("push-50-docs")
        let bodies = capture.messages.filter { $0.fromClient && $0.message.profile == "rev" }
            .map { String(decoding: $0.message.body, as: UTF8.self) }
        try await withReplicatorCore(engine) { core in
            let base = bodies[0]
            try core.saveRevision(id: "doc", base: nil, policy: .failOnConflict) { encoder in
                try Array(base.utf8).withUnsafeBytes { try JSONConverter.write(json: $0, to: encoder) }
            }
            let baseRevision = try #require(try core.document(id: "doc")?.revisionID)
            let old = try FleeceDocument(json: base)
            let (clientEnd, serverEnd) = InMemoryBLIPTransport.pair()
            let session = ReplicationSession(database: core, connection: BLIPConnection(transport: serverEnd),
                                             role: .passive(readOnly: false))
            let server = Task { await session.serve() }
            let client = BLIPConnection(transport: clientEnd)
            client.start()
            let campaign = await FuzzCampaign.run("replication delta revs", seed: 0xAE9_0003, inputs: 300) { random in
                let new = try? FleeceDocument(json: bodies[Int.random(in: 0..<bodies.count, using: &random)])  // allowed: captured bodies parse
                guard let new, let delta = JSONDelta.create(from: old.root, to: new.root) else { return .accepted }
                let input = FuzzMutator.mutate(Array(delta.utf8), &random,
                                               tokens: ["[]", "[0]", ",0,2]", #"{"0-":["#, #""3=2-1+x|""#, "{", "}"].map { Array($0.utf8) })
                let current = (try? core.document(id: "doc")?.revisionID) ?? baseRevision  // allowed: the saved base
                let request = BLIPMessage(properties: ["Profile": "rev", "id": "doc", "rev": "2-\(String(repeating: "b", count: 40))",
                                                       "history": current.string, "deltaSrc": current.string],
                                          body: input)
                do {
                    _ = try await client.sendRequest(request)
                    // Saved: take it back out so the next input has the same base.
                    _ = try core.purgeDocument(id: "doc")
                    try core.saveRevision(id: "doc", base: nil, policy: .failOnConflict) { encoder in
                        try Array(base.utf8).withUnsafeBytes { try JSONConverter.write(json: $0, to: encoder) }
                    }
                    return .accepted
                } catch BLIPError.remote {
                    return .rejected
                } catch {
                    Issue.record("a delta rev failed with \(error), not an error reply")
                    return .rejected
                }
            }
            await client.close()
            _ = await server.value
            #expect(campaign.accepted > 0 && campaign.rejected > 0)
            // Generous, as for the request sequences below: in the whole suite on 2 cores the
            // cooperative pool can be held for minutes by CPU-heavy synchronous tests.
            #expect(campaign.slowest < .seconds(300))
            let problems = try core.checkIntegrity()
            #expect(problems == [])
        }
    }

    /// The client requests of the push captures' first connection, and the client's replies to
    /// the server's `getAttachment` requests by digest.
    struct Script {
        var requests: [BLIPMessage]
        var attachments: [String: [UInt8]]

        init(_ name: String) throws {
            let capture = try CapturedReplication(name)
            let connection = capture.connections[0]
            let messages = capture.messages.filter { $0.connection == connection }
            requests = messages.filter { $0.fromClient && $0.message.kind == .request }.map(\.message)
            attachments = [:]
            for server in messages where !server.fromClient && server.message.profile == "getAttachment" {
                if let digest = server.message.properties["digest"],
                   let reply = capture.reply(to: server.message.number, requestFromClient: false, connection: connection) {
                    attachments[digest] = reply.body
                }
            }
        }
    }

    /// Mutates one request: its body, one property's value, or a property dropped.
    static func mutate(_ message: BLIPMessage, _ random: inout SplitMix64) -> BLIPMessage {
        var message = message
        let pairs = message.properties.pairs
        switch Int.random(in: 0..<4, using: &random) {
        case 0, 1:
            message.body = FuzzMutator.mutate(message.body, &random,
                                              tokens: [Array(#""_attachments":{"a":{"digest":"sha1-x","length":1e18,"stub":true}}"#.utf8),
                                                       Array(#"[["d","1-a",9e99]]"#.utf8), Array("[[".utf8), Array("null".utf8)])
        case 2 where !pairs.isEmpty:
            var properties = BLIPProperties()
            let index = Int.random(in: 0..<pairs.count, using: &random)
            for (position, pair) in pairs.enumerated() {
                let value = position == index
                    ? FuzzMutator.mutate(pair.value, &random, tokens: ["/", "..", "-", "18446744073709551616", ",", "\u{0}"])
                    : pair.value
                properties[pair.key] = value.contains("\u{0}") ? "" : value
            }
            message.properties = properties
        default:
            var properties = BLIPProperties()
            let skipped = pairs.isEmpty ? -1 : Int.random(in: 0..<pairs.count, using: &random)
            for (position, pair) in pairs.enumerated() where position != skipped { properties[pair.key] = pair.value }
            message.properties = properties
        }
        return message
    }

    /// Plays `requests` against a passive session on `core`.
    /// - Returns: whether it finished before the watchdog (30 s) closed the connection, and
    ///   whether any request was refused (an error reply or a closed connection).
    static func play(_ requests: [BLIPMessage], attachments: [String: [UInt8]], mutateAttachments: Bool,
                     seed: UInt64, core: DatabaseCore) async -> (completed: Bool, refused: Bool) {
        let (clientEnd, serverEnd) = InMemoryBLIPTransport.pair()
        let session = ReplicationSession(database: core, connection: BLIPConnection(transport: serverEnd),
                                         role: .passive(readOnly: false))
        let server = Task { await session.serve() }
        let client = BLIPConnection(transport: clientEnd)
        client.start()
        let answers = Task {
            var random = SplitMix64(seed: seed)
            for await request in client.requests {
                let message = request.message
                switch message.profile {
                case "getAttachment":
                    if var body = message.properties["digest"].flatMap({ attachments[$0] }) {
                        if mutateAttachments { body = FuzzMutator.mutate(body, &random) }
                        await request.respond(body: body)
                    } else {
                        await request.respondError(domain: "HTTP", code: 404, message: "no such attachment")
                    }
                case "changes", "proposeChanges":
                    await request.respond(body: Array("[]".utf8))
                default:
                    await request.respond()
                }
            }
        }
        let state = Locked<(finished: Bool, hung: Bool)>((false, false))
        let watchdog = Task {
            // A time limit, not a wait for work: an input that takes this long is a hang. Inputs
            // take milliseconds alone; 120 s because in the whole suite on 2 cores the
            // cooperative pool can be held for tens of seconds by CPU-heavy synchronous tests,
            // which starves an input without hanging it (one input passed 30 s that way).
            try await Task.sleep(for: .seconds(120))
            let fire = state.withLock { state -> Bool in
                if state.finished { return false }
                state.hung = true
                return true
            }
            if fire { await client.close(code: 1001, reason: "fuzz watchdog") }
        }
        var refused = false
        for var request in requests {
            request.number = 0
            do {
                if request.noReply {
                    try await client.sendNoReply(request)
                } else {
                    _ = try await client.sendRequest(request)
                }
            } catch let error as BLIPError {
                if case .closed = error {
                    refused = true
                    break   // the server closed the connection: fine
                }
                // A new database has no checkpoint yet: that 404 is the normal answer.
                if case .remote(_, 404, _) = error, request.profile == "getCheckpoint" { continue }
                refused = true
            } catch {
                Issue.record("sending a request threw \(type(of: error)), not BLIPError")
            }
        }
        state.withLock { $0.finished = true }
        watchdog.cancel()
        await client.close()
        _ = await server.value
        answers.cancel()
        return (!state.withLock { $0.hung }, refused)
    }

    @Test func mutatedClientRequestSequencesAreHandledOrRefused() async throws {
        let scripts = try ["push-50-docs", "push-3-blobs", "push-existing-and-conflict"].map { try Script($0) }
        try await withReplicatorCore(.sqlite) { core in
            let campaign = await FuzzCampaign.run("replication requests", seed: 0xAE9_0002, inputs: 150) { random in
                let script = scripts[Int.random(in: 0..<scripts.count, using: &random)]
                // A short prefix keeps each input small: the opening requests and a few revs.
                var requests = Array(script.requests.prefix(Int.random(in: 2...10, using: &random)))
                for _ in 0..<Int.random(in: 1...3, using: &random) {
                    let index = Int.random(in: 0..<requests.count, using: &random)
                    requests[index] = Self.mutate(requests[index], &random)
                }
                let result = await Self.play(requests, attachments: script.attachments,
                                             mutateAttachments: Bool.random(using: &random),
                                             seed: random.next(), core: core)
                #expect(result.completed, "an input hung the passive side")
                return result.refused ? .rejected : .accepted
            }
            // Generous: a loaded CI machine; a hang is what the watchdog reports.
            #expect(campaign.slowest < .seconds(300))
            // The inputs reached the inserter: mutated revisions were saved, and stayed valid.
            let saved = try core.documentCount()
            #expect(saved > 0)
            let problems = try core.checkIntegrity()
            #expect(problems == [])
        }
    }
}
