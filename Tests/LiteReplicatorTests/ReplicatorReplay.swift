import BLIP
import Foundation
import LiteDatabase
import LiteReplicator
import LiteSupport

/// Plays the server side of a captured replication against our active replicator: answers
/// each request of ours with the real server's answer to the same request of the real client
/// (the k-th request of a profile gets the reply to the k-th captured one), fetches blobs as
/// the real server did, and, after `subChanges`, sends what the real server sent.
struct ReplicatorReplay {
    /// Our requests, in the order they arrived.
    var ourRequests: [BLIPMessage] = []
    /// The real client's requests.
    var theirRequests: [BLIPMessage] = []
    /// Our replies to the server's requests, with the real client's.
    var replies: [(request: BLIPMessage, ours: BLIPMessage?, theirs: BLIPMessage?)] = []

    static func run(_ capture: CapturedReplication, connection: Int, client core: DatabaseCore,
                    options: ReplicationOptions) async throws -> ReplicatorReplay {
        let messages = capture.messages.filter { $0.connection == connection }
        let theirRequests = messages.filter { $0.fromClient && $0.message.kind == .request }.map(\.message)
        let serverRequests = messages.filter { !$0.fromClient && $0.message.kind == .request }.map(\.message)
        let (clientEnd, serverEnd) = InMemoryBLIPTransport.pair()
        let server = BLIPConnection(transport: serverEnd)
        server.start()
        let recorded = Locked<(requests: [BLIPMessage], replies: [(BLIPMessage, BLIPMessage?, BLIPMessage?)])>(([], []))
        let serverTask = Task {
            var seen: [String: Int] = [:]
            for await request in server.requests {
                let profile = request.message.profile ?? ""
                recorded.withLock { $0.requests.append(request.message) }
                let index = seen[profile, default: 0]
                seen[profile] = index + 1
                if profile == "rev" {
                    // The real server fetched the revision's blobs before answering.
                    for digest in Self.digests(in: request.message.body) {
                        guard let theirs = serverRequests.first(where: {
                            $0.profile == "getAttachment" && $0.properties["digest"] == digest
                        }) else { continue }
                        var ask = theirs
                        ask.number = 0
                        let ours = try? await server.sendRequest(ask)
                        let expected = capture.reply(to: theirs.number, requestFromClient: false, connection: connection)
                        recorded.withLock { $0.replies.append((theirs, ours, expected)) }
                    }
                }
                let captured = theirRequests.filter { $0.profile == profile }
                guard index < captured.count,
                      let reply = capture.reply(to: captured[index].number, requestFromClient: true, connection: connection) else {
                    await request.respond()
                    continue
                }
                if reply.kind == .error {
                    await request.respondError(domain: reply.properties["Error-Domain"] ?? "BLIP",
                                               code: Int(reply.properties["Error-Code"] ?? "") ?? 500,
                                               message: String(decoding: reply.body, as: UTF8.self))
                } else {
                    await request.respond(properties: reply.properties, body: reply.body, compressed: reply.compressed)
                }
                if profile == "subChanges" {
                    // Then what the real server pushed, in order.
                    for theirs in serverRequests where theirs.profile != "getAttachment" {
                        var message = theirs
                        message.number = 0
                        if message.noReply {
                            try? await server.sendNoReply(message)
                            continue
                        }
                        let ours = try? await server.sendRequest(message)
                        let expected = capture.reply(to: theirs.number, requestFromClient: false, connection: connection)
                        recorded.withLock { $0.replies.append((theirs, ours, expected)) }
                    }
                }
            }
        }
        // The captures have no 5-second autosave inside them; a slow (loaded) test machine
        // must not add one, so only the final save happens.
        var options = options
        options.checkpointSaveDelay = .seconds(3600)
        let session = ReplicationSession(database: core, connection: BLIPConnection(transport: clientEnd),
                                         role: .active(options))
        try await session.runActive()
        _ = await server.waitUntilClosed()
        await serverTask.value
        var replay = ReplicatorReplay()
        replay.theirRequests = theirRequests
        (replay.ourRequests, replay.replies) = recorded.withLock { ($0.requests, $0.replies.map { ($0.0, $0.1, $0.2) }) }
        return replay
    }

    /// The blob digests a revision body names.
    static func digests(in body: [UInt8]) -> [String] {
        let text = String(decoding: body, as: UTF8.self)
        return text.matches(of: #/"digest":"(sha1-[A-Za-z0-9+/=]+)"/#).map { String($0.1) }
    }
}
