@testable import CouchbaseLiteSwift
import Foundation
import Testing
import TestSupport

/// Keep-alive (issue 14): the replicator pings at its `heartbeat` interval and treats a ping
/// left unanswered as a dropped connection, so a peer that went silent without TCP noticing is
/// left and the replication retried.
@Suite(.ownThreads) struct HeartbeatTests {
    @Test(.timeLimit(.minutes(TestTimeScale.minutes(2))), arguments: StorageEngineKind.allCases)
    func aSilentPeerIsNoticedAndTheReplicatorReconnects(engine: StorageEngineKind) async throws {
        try await withTwoDatabases((engine, engine)) { client, server, _ in
            var listenerConfig = URLEndpointListenerConfiguration(database: server)
            listenerConfig.disableTLS = true
            listenerConfig.networkInterface = "127.0.0.1"
            let listener = URLEndpointListener(config: listenerConfig)
            try await listener.start()
            let proxy = try DroppingTCPProxy(upstreamPort: try #require(listener.port))
            defer { proxy.stop() }
            var components = URLComponents()
            components.scheme = "ws"
            components.host = "127.0.0.1"
            components.port = Int(proxy.port)
            components.path = "/\(server.name)"
            let config = ReplicatorConfiguration(database: client, target: URLEndpoint(url: try #require(components.url)))
            config.continuous = true
            config.heartbeat = 0.5
            config.maxAttemptWaitTime = 0.1
            let replicator = Replicator(config: config)
            let (pushed, pushedInput) = AsyncStream.makeStream(of: String.self)
            let token = replicator.addDocumentReplicationListener { replication in
                for document in replication.documents where replication.isPush && document.error == nil {
                    pushedInput.yield(document.id)
                }
            }
            var statuses = replicator.statusChanges().makeAsyncIterator()
            replicator.start()
            try await Self.next(.idle, in: &statuses)

            // The path goes silent: no error, no close, nothing forwarded either way.
            proxy.silenceAll()
            let document = MutableDocument(id: "after-silence")
            document.setString("made it", forKey: "note")
            try client.saveDocument(document)
            let offline = try await Self.next(.offline, in: &statuses)
            #expect(offline.error != nil, "the lost connection is reported")
            // A new connection (not silenced) carries the document.
            for await id in pushed where id == "after-silence" { break }
            #expect(proxy.connectionCount >= 2)
            replicator.removeChangeListener(withToken: token)

            let stopped = replicator.statusChanges()
            replicator.stop()
            for await status in stopped where status.activity == .stopped { break }
            await listener.waitUntilIdle()
            await listener.stop()
            #expect(server.document(withID: "after-silence")?.string(forKey: "note") == "made it")
        }
    }

    /// Waits for the next status with `activity` (failing if the replicator stops first).
    @discardableResult
    static func next(_ activity: Replicator.ActivityLevel, in statuses: inout AsyncStream<Replicator.Status>.Iterator) async throws
        -> Replicator.Status {
        while let status = await statuses.next() {
            if status.activity == activity { return status }
            if status.activity == .stopped {
                Issue.record("the replicator stopped while waiting for \(activity): \(String(describing: status.error))")
                throw CancellationError()
            }
        }
        throw CancellationError()
    }
}
