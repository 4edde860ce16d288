@testable import CouchbaseLiteSwift
import Foundation
import Testing
import TestSupport

/// Issue 14's acceptance: a proxy between a replicator and a listener drops connections at
/// random byte offsets, delays and splits what it forwards, or flips a byte inside a BLIP frame;
/// each push-pull ends in a clean retry or a clear error, never in lost or duplicated documents.
@Suite(.ownThreads) struct FaultInjectionTests {
    /// One kind of fault, applied to the first connections (later ones are clean).
    enum Fault: String, CaseIterable, Sendable {
        case dropAtRandomOffsets, delayAndSplit, corruptAFrameToTheClient, corruptAFrameToTheServer

        func faults(seed: UInt64) -> ProxyFaults {
            switch self {
            case .dropAtRandomOffsets:
                return ProxyFaults(seed: seed, dropAfterBytes: 500...20_000, faultyConnections: 4)
            case .delayAndSplit:
                return ProxyFaults(seed: seed, delayMilliseconds: 0...2, maxChunk: 900, faultyConnections: .max)
            case .corruptAFrameToTheClient:
                return ProxyFaults(seed: seed, corruptMessage: 4 + Int(seed % 7), corruptDirection: .toClient,
                                   faultyConnections: 2)
            case .corruptAFrameToTheServer:
                return ProxyFaults(seed: seed, corruptMessage: 4 + Int(seed % 7), corruptDirection: .toServer,
                                   faultyConnections: 2)
            }
        }
    }

    @Test(.timeLimit(.minutes(TestTimeScale.minutes(3))), arguments: Fault.allCases, StorageEngineKind.allCases)
    func pushAndPullEndIdenticalOrWithAClearError(fault: Fault, engine: StorageEngineKind) async throws {
        try await withTwoDatabases((engine, engine)) { client, server, _ in
            try Self.fill(client, prefix: "client", count: 160, blobs: 3)
            try Self.fill(server, prefix: "server", count: 140, blobs: 2)
            var listenerConfig = URLEndpointListenerConfiguration(database: server)
            listenerConfig.disableTLS = true
            listenerConfig.networkInterface = "127.0.0.1"
            let listener = URLEndpointListener(config: listenerConfig)
            try await listener.start()
            let port = try #require(listener.port)
            let proxy = try DroppingTCPProxy(upstreamPort: port, faults: fault.faults(seed: engine == .sqlite ? 0xFA17 : 0xFA18))
            defer { proxy.stop() }

            let status = await Self.replicator(client, port: proxy.port, database: server.name).runToCompletion()
            switch fault {
            case .dropAtRandomOffsets, .delayAndSplit:
                #expect(status.error == nil, "\(fault): \(String(describing: status.error))")
            case .corruptAFrameToTheClient, .corruptAFrameToTheServer:
                #expect(proxy.corruptionCount >= 1, "the fault never fired")
                if let error = status.error {
                    // A clear error is acceptable; then a clean run must finish the job.
                    #expect("\(error)".contains("checksum") || "\(error)".contains("WebSocket") || "\(error)".contains("BLIP"),
                            "unclear error: \(error)")
                    let again = await Self.replicator(client, port: port, database: server.name).runToCompletion()
                    #expect(again.error == nil)
                }
            }
            if fault == .dropAtRandomOffsets { #expect(proxy.droppedCount > 0, "no connection was cut") }
            print("fault-injection \(fault) \(engine): \(proxy.connectionCount) connections, \(proxy.droppedCount) cut, "
                  + "\(proxy.corruptionCount) corrupted, ended with \(status.error.map { "\($0)" } ?? "no error")")
            #expect(status.activity == .stopped)
            await listener.waitUntilIdle()
            await listener.stop()
            try Self.expectIdentical(client, server, count: 160 + 3 + 140 + 2)
        }
    }

    /// Saves `count` small documents and `blobs` documents with a small blob each.
    static func fill(_ database: Database, prefix: String, count: Int, blobs: Int) throws {
        try database.inBatch(using: {
            for index in 0..<count {
                let document = MutableDocument(id: "\(prefix)-\(index)")
                document.setInt(index, forKey: "n")
                document.setString(String(repeating: "\(prefix) \(index) ", count: 1 + index % 9), forKey: "text")
                try database.saveDocument(document)
            }
            for index in 0..<blobs {
                let document = MutableDocument(id: "\(prefix)-blob-\(index)")
                let bytes = Data((0..<(3_000 + 1_700 * index)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ index) })
                document.setBlob(Blob(contentType: "application/octet-stream", data: bytes), forKey: "data")
                try database.saveDocument(document)
            }
        })
    }

    static func replicator(_ database: Database, port: UInt16, database name: String) -> Replicator {
        var components = URLComponents()
        components.scheme = "ws"
        components.host = "127.0.0.1"
        components.port = Int(port)
        components.path = "/\(name)"
        let url = components.url ?? URL(fileURLWithPath: "/")
        let config = ReplicatorConfiguration(database: database, target: URLEndpoint(url: url))
        config.replicatorType = .pushAndPull
        config.maxAttempts = 30
        config.maxAttemptWaitTime = 0.2
        return Replicator(config: config)
    }

    /// Same document IDs, revision IDs, bodies and blob contents on both sides, `count` of each.
    static func expectIdentical(_ client: Database, _ server: Database, count: Int,
                                sourceLocation: SourceLocation = #_sourceLocation) throws {
        let mine = try snapshot(client), theirs = try snapshot(server)
        #expect(mine.count == count, "client holds \(mine.count) documents", sourceLocation: sourceLocation)
        #expect(theirs.count == count, "server holds \(theirs.count) documents", sourceLocation: sourceLocation)
        let differing = Set(mine.keys).union(theirs.keys).filter { mine[$0] != theirs[$0] }
        #expect(differing.isEmpty, "\(differing.count) differ: \(differing.sorted().prefix(5))", sourceLocation: sourceLocation)
        for id in mine.keys where id.contains("-blob-") {
            let a = client.document(withID: id)?.blob(forKey: "data")?.content
            let b = server.document(withID: id)?.blob(forKey: "data")?.content
            #expect(a != nil && a == b, "blob of \(id)", sourceLocation: sourceLocation)
        }
    }
}
