import CouchbaseLiteSwift
import Foundation
import Testing
import TestSupport

/// The attacks of issue 37, made as an attacker makes them: a raw socket, a WebSocket handshake
/// and BLIP frames written by hand (``RawSocket``, ``HandMadeBLIP``), against a
/// ``URLEndpointListener``. Each asserts the listener's answer to the attack, and that a normal
/// client still replicates through the same listener meanwhile.
@Suite(.ownThreads) struct HostileListenerTests {
    /// A listener on 127.0.0.1 serving `target` over plain ws://, its port, and a check that a
    /// fresh normal client still pushes a document through it.
    func withListener(_ target: Database, configure: (inout URLEndpointListenerConfiguration) -> Void = { _ in },
                      _ body: (UInt16, _ stillServes: @escaping @Sendable (String) async throws -> Void) async throws -> Void)
        async throws {
        var config = URLEndpointListenerConfiguration(database: target)
        config.networkInterface = "127.0.0.1"
        config.disableTLS = true
        // A sanitized run's slow peer is not an idle or stalled one.
        config.handshakeTimeout = TestTimeScale.seconds(config.handshakeTimeout)
        config.idleTimeout = TestTimeScale.seconds(config.idleTimeout)
        configure(&config)
        let listener = URLEndpointListener(config: config)
        try await listener.start()
        let url = try #require(listener.urls.first)
        let port = try #require(listener.port)
        let directory = try TemporaryDirectory()
        let stillServes: @Sendable (String) async throws -> Void = { id in
            let source = try Database(name: "client-\(id)", config: StorageEngineKind.sqlite.config(in: directory))
            defer { try? source.close() }
            try saved(source, id, ["from": "a normal client"])
            let replicatorConfig = ReplicatorConfiguration(database: source, target: URLEndpoint(url: url))
            replicatorConfig.replicatorType = .push
            let status = await Replicator(config: replicatorConfig).runToCompletion()
            #expect(status.error == nil, "a normal client could not push: \(String(describing: status.error))")
            #expect(target.document(withID: id)?.string(forKey: "from") == "a normal client")
        }
        do {
            try await body(port, stillServes)
        } catch {
            await listener.stop()
            throw error
        }
        await listener.stop()
        withExtendedLifetime(directory) {}
    }

    /// A peer that connects and upgrades, ready for hand-made frames.
    static func upgradedPeer(port: UInt16, database: String) throws -> RawSocket {
        let socket = try RawSocket(port: port)
        let head = try socket.upgrade(database: database, port: port)
        guard head.hasPrefix("HTTP/1.1 101") else { throw RawSocket.Failure(description: "not upgraded: \(head)") }
        return socket
    }

    /// Issue 37's crash: a `rev` naming a blob the listener lacks, then the listener's
    /// `getAttachment` answered with a reply whose properties length is the varint
    /// `FF FF FF FF FF FF FF FF 7F` (a valid checksum). The process used to die on an
    /// arithmetic overflow; now that connection closes with 1002 and the listener serves on.
    @Test(arguments: StorageEngineKind.allCases)
    func aReplyWithAHugePropertiesLengthClosesOnlyItsConnection(engine: StorageEngineKind) async throws {
        try await withServedDatabase(engine) { target in
            try await withListener(target) { port, stillServes in
                let name = target.name
                let code = try await RawSocket.offPool { () -> UInt16? in
                    let socket = try Self.upgradedPeer(port: port, database: name)
                    var blip = HandMadeBLIP()
                    let body = #"{"photo":{"@type":"blob","digest":"sha1-AAAAAAAAAAAAAAAAAAAAAAAAAAA=","length":10}}"#
                    let rev = HandMadeBLIP.properties([("Profile", "rev"), ("id", "victim"),
                                                       ("rev", "1-0123456789abcdef0123456789abcdef01234567")])
                        + Array(body.utf8)
                    try socket.sendMessage(blip.frame(number: 1, flags: 0x00, payload: rev))
                    // The listener asks for the blob: answer its request with the hostile reply.
                    var asked: UInt64?
                    while asked == nil {
                        guard case .message(let frame) = try socket.receive() else { continue }
                        var index = 0
                        var number: UInt64 = 0
                        var shift: UInt64 = 0
                        while frame[index] & 0x80 != 0 { number |= UInt64(frame[index] & 0x7F) << shift; shift += 7; index += 1 }
                        number |= UInt64(frame[index] & 0x7F) << shift
                        if frame[index + 1] & 0x07 == 0 { asked = number }
                    }
                    let hostile: [UInt8] = [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F, 1, 2, 3]
                    try socket.sendMessage(blip.frame(number: asked ?? 1, flags: 0x01, payload: hostile))
                    return try socket.closeCode()
                }
                #expect(code == 1002)
                #expect(target.document(withID: "victim") == nil)
                try await stillServes("after-crash-frame")
            }
        }
    }

    /// One compressed frame inflating to 200 MB: the listener stops inflating at its message
    /// limit (20 MiB by default) and closes with 1009; it used to buffer 64 MiB and close
    /// with 1002.
    @Test(arguments: StorageEngineKind.allCases)
    func anInflateBombIsRefusedAtTheMessageLimit(engine: StorageEngineKind) async throws {
        try await withServedDatabase(engine) { target in
            try await withListener(target) { port, stillServes in
                let name = target.name
                let code = try await RawSocket.offPool { () -> UInt16? in
                    let socket = try Self.upgradedPeer(port: port, database: name)
                    var blip = HandMadeBLIP()
                    let properties = HandMadeBLIP.properties([("Profile", "rev"), ("id", "bomb"), ("rev", "1-aa")])
                    let frame = try blip.compressedFrame(number: 1, prefix: properties, zeros: 200_000_000)
                    #expect(frame.count < 1 << 20)
                    try socket.sendMessage(frame)
                    return try socket.closeCode()
                }
                #expect(code == 1009)
                try await stillServes("after-bomb")
            }
        }
    }

    /// 2,000 requests of 32 KiB whose last frame never comes, on one connection: the listener
    /// closes it (1008) once 256 are under way, instead of holding 63 MB.
    @Test(arguments: StorageEngineKind.allCases)
    func unfinishedRequestsAreRefusedPastTheLimit(engine: StorageEngineKind) async throws {
        try await withServedDatabase(engine) { target in
            try await withListener(target) { port, stillServes in
                let name = target.name
                let (code, sent) = try await RawSocket.offPool { () -> (UInt16?, Int) in
                    let socket = try Self.upgradedPeer(port: port, database: name)
                    var blip = HandMadeBLIP()
                    let payload = HandMadeBLIP.properties([("Profile", "rev")]) + [UInt8](repeating: 0x20, count: 32 * 1024)
                    var sent = 0
                    for number in 1...2000 {
                        do {
                            try socket.sendMessage(blip.frame(number: UInt64(number), flags: 0x40, payload: payload))
                            sent = number
                        } catch {
                            break  // the listener hung up
                        }
                    }
                    return (try socket.closeCode(), sent)
                }
                #expect(code == 1008, "after \(sent) unfinished requests")
                try await stillServes("after-open-requests")
            }
        }
    }

    /// 300 connections that send `GET /` and stall: the listener closes each within its
    /// handshake deadline (2 s here), and a normal client gets in while they stall (the
    /// oldest stalled handshake makes room when all slots are taken).
    @Test(arguments: StorageEngineKind.allCases)
    func stalledHandshakesAreClosedAndClientsStillGetIn(engine: StorageEngineKind) async throws {
        try await withServedDatabase(engine) { target in
            try await withListener(target, configure: { $0.handshakeTimeout = 2 }) { port, stillServes in
                let stalled = try await RawSocket.offPool { () -> [RawSocket] in
                    try (0..<300).map { _ in
                        let socket = try RawSocket(port: port, timeout: 20)
                        try socket.send(Array("GET /".utf8))
                        return socket
                    }
                }
                let started = ContinuousClock.now
                try await stillServes("during-stalled-handshakes")
                let closedAll = try await RawSocket.offPool { () -> Bool in
                    for socket in stalled { try socket.waitForEndOfStream() }
                    return true
                }
                #expect(closedAll)
                // Loose: the normal client's push above shares the time, and a busy machine
                // slows both; a stalled socket never closed fails on its 20 s read timeout.
                #expect(ContinuousClock.now - started < TestTimeScale.scaled(.seconds(60)))
            }
        }
    }

    /// An upgraded connection that then says nothing, not even a pong, is closed (1001) after
    /// the idle timeout.
    @Test func anIdlePeerIsClosed() async throws {
        try await withServedDatabase(.sqlite) { target in
            try await withListener(target, configure: { $0.idleTimeout = 2 }) { port, stillServes in
                let name = target.name
                let started = ContinuousClock.now
                let code = try await RawSocket.offPool { () -> UInt16? in
                    let socket = try Self.upgradedPeer(port: port, database: name)
                    return try socket.closeCode()
                }
                #expect(code == 1001)
                #expect(ContinuousClock.now - started < TestTimeScale.scaled(.seconds(10)))
                try await stillServes("after-idle")
            }
        }
    }

    /// Without credentials a client learns nothing, not even whether a database exists: 401
    /// for every path (it used to get 404 for an unknown database before being asked).
    @Test func credentialsAreCheckedBeforeTheDatabaseName() async throws {
        try await withServedDatabase(.sqlite) { target in
            try await withListener(target, configure: { config in
                config.authenticator = ListenerPasswordAuthenticator { $0 == "user" && $1 == "secret" }
            }) { port, _ in
                let name = target.name
                let heads = try await RawSocket.offPool { () -> [String] in
                    try [name, "no-such-database"].map { database in
                        try RawSocket(port: port).upgrade(database: database, port: port)
                    }
                }
                for head in heads { #expect(head.hasPrefix("HTTP/1.1 401"), "\(head)") }
                let authorized = try await RawSocket.offPool { () -> String in
                    let credentials = Data("user:secret".utf8).base64EncodedString()
                    return try RawSocket(port: port).upgrade(database: "no-such-database", port: port,
                                                             headers: ["Authorization: Basic \(credentials)"])
                }
                #expect(authorized.hasPrefix("HTTP/1.1 404"), "\(authorized)")
            }
        }
    }
}

/// A database named "served" with `engine`, for an async body.
func withServedDatabase(_ engine: StorageEngineKind, _ body: (Database) async throws -> Void) async throws {
    let directory = try TemporaryDirectory()
    let database = try Database(name: "served", config: engine.config(in: directory))
    do {
        try await body(database)
    } catch {
        try? database.close()
        throw error
    }
    try? database.close()
    withExtendedLifetime(directory) {}
}
