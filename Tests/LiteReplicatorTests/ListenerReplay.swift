import BLIP
import Foundation
import LiteDatabase
import LiteReplicator
import LiteSupport

/// Plays the client side of a captured replication against our passive side: sends the real
/// client's requests, answers our server's requests with what the real client answered, and
/// records every reply and request of ours next to the real server's.
struct ListenerReplay {
    struct Exchange {
        var request: BLIPMessage
        var ours: BLIPMessage?
        var ourError: BLIPError?
        var theirs: BLIPMessage?
    }

    /// Our replies to the client's requests, each with the real server's.
    var exchanges: [Exchange] = []
    /// The requests our server sent, and those the real server sent.
    var ourRequests: [BLIPMessage] = []
    var theirRequests: [BLIPMessage] = []

    static func run(_ capture: CapturedReplication, against core: DatabaseCore) async throws -> ListenerReplay {
        var replay = ListenerReplay()
        for connection in capture.connections {
            try await replay.run(capture, connection: connection, core: core)
        }
        return replay
    }

    private mutating func run(_ capture: CapturedReplication, connection: Int, core: DatabaseCore) async throws {
        let messages = capture.messages.filter { $0.connection == connection }
        let serverRequests = messages.filter { !$0.fromClient && $0.message.kind == .request }.map(\.message)
        theirRequests += serverRequests
        let (clientEnd, serverEnd) = InMemoryBLIPTransport.pair()
        let session = ReplicationSession(database: core, connection: BLIPConnection(transport: serverEnd),
                                         role: .passive(readOnly: false))
        let server = Task { await session.serve() }
        let client = BLIPConnection(transport: clientEnd)
        client.start()
        // Answer our server's requests as the real client answered the real server's.
        let received = Locked<[BLIPMessage]>([])
        let expected = serverRequests.count
        let allReceived = Gate()
        let answers = Task {
            for await request in client.requests {
                let count = received.withLock { list -> Int in
                    list.append(request.message)
                    return list.count
                }
                await Self.answer(request, capture: capture, connection: connection, serverRequests: serverRequests)
                if count >= expected { allReceived.open() }
            }
            allReceived.open()
        }
        if expected == 0 { allReceived.open() }
        for captured in messages where captured.fromClient && captured.message.kind == .request {
            var request = captured.message
            request.number = 0
            if request.noReply {
                try await client.sendNoReply(request)
                continue
            }
            var exchange = Exchange(request: captured.message,
                                    theirs: capture.reply(to: captured.message.number, requestFromClient: true,
                                                          connection: connection))
            do {
                exchange.ours = try await client.sendRequest(request)
            } catch let error as BLIPError {
                exchange.ourError = error
            }
            exchanges.append(exchange)
            if captured.message.profile == "subChanges" {
                // The real client saved its checkpoint after the pull: wait for ours to finish.
                await allReceived.wait()
            }
        }
        await allReceived.wait()
        await client.close()
        _ = await server.value
        answers.cancel()
        ourRequests += received.withLock { $0 }
    }

    private static func answer(_ request: BLIPIncomingRequest, capture: CapturedReplication, connection: Int,
                               serverRequests: [BLIPMessage]) async {
        let message = request.message
        switch message.profile {
        case "getAttachment":
            // By digest: our server may ask in another order.
            if let theirs = serverRequests.first(where: { $0.properties["digest"] == message.properties["digest"] }),
               let reply = capture.reply(to: theirs.number, requestFromClient: false, connection: connection) {
                await request.respond(body: reply.body, compressed: message.properties["compress"] == "true")
            } else {
                await request.respondError(domain: "HTTP", code: 404, message: "not in the capture")
            }
        case "changes":
            // The real (empty) client asked for everything it was offered.
            let count = (try? JSONSerialization.jsonObject(with: Data(message.body)) as? [Any])?.count ?? 0
            await request.respond(body: Array(("[" + Array(repeating: "[]", count: count).joined(separator: ",") + "]").utf8))
        default:
            await request.respond()
        }
    }
}

/// JSON bodies compared as values (sorted keys); anything else as bytes.
func sameBody(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
    if lhs == rhs { return true }
    func canonical(_ bytes: [UInt8]) -> String? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed]),
              let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .fragmentsAllowed])
        else { return nil }
        return String(decoding: data, as: UTF8.self)
    }
    guard let left = canonical(lhs) else { return false }
    return left == canonical(rhs)
}

/// Opens once; everyone waiting (or coming later) passes.
final class Gate: Sendable {
    private let state = Locked<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    func open() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.open = true
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    func wait() async {
        await withCheckedContinuation { continuation in
            let passNow = state.withLock { state -> Bool in
                if state.open { return true }
                state.waiters.append(continuation)
                return false
            }
            if passNow { continuation.resume() }
        }
    }
}
