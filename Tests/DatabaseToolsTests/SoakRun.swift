@testable import CouchbaseLiteSwift
import Dispatch
import Foundation
import LiteSupport
import Testing
import TestSupport

/// The soak test's run: two databases ("server" on SQLite behind a `URLEndpointListener` on
/// loopback, "client" on RocksDB) replicating continuously through a `DroppingTCPProxy` that
/// cuts the connection at random; writer and reader tasks on both; a live query on the client;
/// and a child process (`database-crash-writer soak`) that saves into a third database and
/// pushes through the proxy, killed with SIGKILL every few seconds and restarted. At the end
/// both databases hold exactly the acknowledged documents, their indexes agree with a full
/// scan, and memory stayed bounded.
enum SoakRun {
    /// What a run did, for the log and docs/reliability.md.
    struct Figures: CustomStringConvertible {
        var seconds: Double
        var writes = 0
        var reads = 0
        var liveQueryUpdates = 0
        var childCommits = 0
        var kills = 0
        var proxyConnections = 0
        var drops = 0
        var reconnects = 0
        var transientRefusals = 0
        var documents = 0
        var peakResidentMiB = 0
        var residentGrowthMiB = 0
        /// The refusals by direction and error code ("push 10409": 12, …).
        var refusalKinds: [String: Int] = [:]

        var description: String {
            "soak: \(Int(seconds)) s, \(writes) writes + \(childCommits) child commits, \(reads) reads, "
                + "\(liveQueryUpdates) live-query updates, \(kills) SIGKILLs, \(drops) proxy drops, "
                + "\(proxyConnections) proxied connections, \(reconnects) replicator reconnects, "
                + "\(transientRefusals) documents refused on the way and pushed later, "
                + "\(documents) documents on each side, peak RSS \(peakResidentMiB) MiB "
                + "(RSS growth after warm-up \(residentGrowthMiB) MiB), nothing lost; refusals by kind: "
                + refusalKinds.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ")
        }
    }

    /// The last value each in-process writer had acknowledged per document (nil: deleted).
    typealias Acknowledged = [String: Int?]

    static func configuration(_ engine: StorageEngineKind, _ directory: String) -> DatabaseConfiguration {
        let config = DatabaseConfiguration()
        config.directory = directory
        config.storageEngine = engine == .sqlite ? .sqlite : .rocksdb
        return config
    }

    static func createIndexes(_ database: Database) throws {
        try database.createIndex(IndexBuilder.valueIndex(items: ValueIndexItem.property("category")), withName: "category")
        try database.createIndex(IndexBuilder.fullTextIndex(items: FullTextIndexItem.property("text")), withName: "text")
    }

    static func run(seconds: Double) async throws -> Figures {
        let directory = try TemporaryDirectory()
        defer { withExtendedLifetime(directory) {} }
        let server = try Database(name: "server", config: configuration(.sqlite, directory.appending("server").path))
        let client = try Database(name: "client", config: configuration(.rocksdb, directory.appending("client").path))
        defer {
            try? server.close()  // allowed: the checks already ran
            try? client.close()  // allowed: the checks already ran
        }
        try createIndexes(server)
        try createIndexes(client)
        var listenerConfig = URLEndpointListenerConfiguration(database: server)
        listenerConfig.disableTLS = true
        listenerConfig.networkInterface = "127.0.0.1"
        let listener = URLEndpointListener(config: listenerConfig)
        try await listener.start()
        let listenerPort = try #require(listener.port)
        let proxy = try DroppingTCPProxy(upstreamPort: listenerPort)
        defer { proxy.stop() }
        let proxied = try #require(URL(string: "ws://127.0.0.1:\(proxy.port)/server"))
        let direct = try #require(URL(string: "ws://127.0.0.1:\(listenerPort)/server"))

        // Continuous replication through the proxy; reconnects counted from its statuses.
        let replicatorConfig = ReplicatorConfiguration(database: client, target: URLEndpoint(url: proxied))
        replicatorConfig.continuous = true
        replicatorConfig.maxAttemptWaitTime = 1
        let replicator = Replicator(config: replicatorConfig)
        let reconnects = Locked(0)
        let continuousErrors = Locked<[String]>([])
        let refusalKinds = Locked<[String: Int]>([:])
        let documentToken = replicator.addDocumentReplicationListener { replication in
            for document in replication.documents {
                if let error = document.error {
                    continuousErrors.withLock { $0.append("\(replication.isPush ? "push" : "pull") \(document.id): \(error)") }
                    let kind = "\(replication.isPush ? "push" : "pull") \((error as? CouchbaseLiteError)?.code.rawValue ?? -1)"
                    refusalKinds.withLock { $0[kind, default: 0] += 1 }
                }
            }
        }
        let statusToken = replicator.addChangeListener { change in
            if change.status.activity == .offline || change.status.activity == .connecting {
                reconnects.withLock { $0 += 1 }
            }
        }
        replicator.start()

        // A live query on the client.
        let liveUpdates = Locked(0)
        let liveQuery = try client.createQuery("SELECT COUNT(*) FROM _ WHERE category = 'c1'")
        let liveToken = liveQuery.addChangeListener { _ in liveUpdates.withLock { $0 += 1 } }

        let clock = ContinuousClock()
        let start = clock.now
        let deadline = start + .milliseconds(Int(seconds * 1000))
        let acknowledged = Locked(Acknowledged())
        let counts = Locked((writes: 0, reads: 0))
        let warmResident = Locked(0)

        // The child writer, killed and restarted until the deadline (blocking: off the pool).
        let childDirectory = directory.appending("child").path
        let childAcknowledged = Locked(0)
        let killer = Task.detached {
            try await onOwnThread {
                try Self.killChildRepeatedly(directory: childDirectory, url: proxied, until: deadline,
                                             acknowledged: childAcknowledged)
            }
        }
        let dropper = Task {
            var random = SplitMix64(seed: 0xD709)
            while clock.now < deadline {
                // Pacing of the fault, not a wait for work.
                try await Task.sleep(for: .milliseconds(Int.random(in: 1500...4000, using: &random)))
                proxy.dropAll()
            }
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, database) in [server, client, server, client].enumerated() {
                // Writers and readers on their own threads: their synchronous database calls
                // must not hold Swift concurrency's two threads, which the replicator, the
                // listener and the suites running beside this one need.
                group.addTask {
                    try await onOwnThread {
                        try Self.write(database, prefix: "w\(index)", seed: UInt64(index), until: deadline,
                                       acknowledged: acknowledged, counts: counts)
                    }
                }
            }
            for (index, database) in [server, client].enumerated() {
                group.addTask {
                    try await onOwnThread {
                        try Self.read(database, seed: UInt64(10 + index), until: deadline, counts: counts)
                    }
                }
            }
            group.addTask {
                // Memory after a quarter of the run: the baseline for "stayed bounded".
                try await Task.sleep(for: .milliseconds(Int(seconds * 250)))
                let resident = ProcessMemory.residentBytes() ?? 0
                warmResident.withLock { $0 = resident }
            }
            try await group.waitForAll()
        }
        let kills = try await killer.value
        dropper.cancel()
        liveQuery.removeChangeListener(withToken: liveToken)

        // The child's database: everything it acknowledged is there; push the rest directly.
        let child = try Database(name: "crash", config: configuration(.sqlite, childDirectory))
        let childCount = child.document(withID: "child-counter")?.int(forKey: "n") ?? 0
        #expect(childCount >= childAcknowledged.withLock { $0 }, "the child lost a commit it acknowledged")
        for number in stride(from: 1, through: childCount, by: 1) where child.document(withID: "child-\(number)") == nil {
            Issue.record("child document \(number) is missing from the child's own database")
        }
        let finalPush = ReplicatorConfiguration(database: child, target: URLEndpoint(url: direct))
        finalPush.replicatorType = .push
        let pushed = await Self.runToCompletion(Replicator(config: finalPush))
        #expect(pushed.error == nil, "final push of the child: \(String(describing: pushed.error))")
        try child.close()

        // Stop the continuous replicator, then one direct push-pull brings both sides level.
        await Self.stop(replicator)
        replicator.removeChangeListener(withToken: statusToken)
        replicator.removeChangeListener(withToken: documentToken)
        let level = ReplicatorConfiguration(database: client, target: URLEndpoint(url: proxied))
        let leveler = Replicator(config: level)
        let documentErrors = Locked<[String]>([])
        leveler.addDocumentReplicationListener { replication in
            for document in replication.documents {
                if let error = document.error {
                    documentErrors.withLock { $0.append("\(replication.isPush ? "push" : "pull") \(document.id): \(error)") }
                }
            }
        }
        let leveled = await Self.runToCompletion(leveler)
        // Refusals (409: a proposal without the revision the peer had, its push reply lost with
        // the connection) are retried once the pull has shown the peer's revisions; what counts
        // is the state below. They are reported with the run's figures.
        let finalRefusals = documentErrors.withLock { $0.count }
        #expect(leveled.error == nil, "final push-pull: \(String(describing: leveled.error))")
        await listener.waitUntilIdle()

        // Exactly the acknowledged documents, on both sides.
        let acked = acknowledged.withLock { $0 }
        var expected = Set(acked.compactMap { $0.value == nil ? nil : $0.key })
        expected.formUnion((0..<childCount).map { "child-\($0 + 1)" })
        if childCount > 0 { expected.insert("child-counter") }
        for database in [server, client] {
            let ids = Set(try database.createQuery("SELECT META().id FROM _").execute().compactMap { $0.string(at: 0) })
            let unexpected = ids.subtracting(expected), missing = expected.subtracting(ids)
            #expect(ids == expected, "\(database.name): \(unexpected.count) unexpected \(unexpected.prefix(5)), \(missing.count) missing \(missing.prefix(5))")
            for (id, value) in acked {
                let stored = database.document(withID: id)
                if let value {
                    #expect(stored?.int(forKey: "value") == value, "\(database.name): \(id) should hold \(value)")
                } else {
                    #expect(stored == nil, "\(database.name): \(id) was deleted")
                }
            }
            try Self.expectIndexesAgreeWithAScan(database)
        }
        let serverRevisions = try Self.revisions(server), clientRevisions = try Self.revisions(client)
        #expect(serverRevisions == clientRevisions, "the two sides hold different revisions")

        await listener.stop()
        var figures = Figures(seconds: Double((clock.now - start).components.seconds))
        figures.writes = counts.withLock { $0.writes }
        figures.reads = counts.withLock { $0.reads }
        figures.liveQueryUpdates = liveUpdates.withLock { $0 }
        figures.childCommits = childCount
        figures.kills = kills
        figures.proxyConnections = proxy.connectionCount
        figures.drops = proxy.droppedCount
        figures.reconnects = reconnects.withLock { $0 }
        figures.transientRefusals = continuousErrors.withLock { $0.count } + finalRefusals
        figures.refusalKinds = refusalKinds.withLock { $0 }
        figures.documents = expected.count
        figures.peakResidentMiB = (ProcessMemory.peakResidentBytes() ?? 0) >> 20
        figures.residentGrowthMiB = max(0, (ProcessMemory.residentBytes() ?? 0) - warmResident.withLock { $0 }) >> 20
        #expect(figures.liveQueryUpdates > 1, "the live query saw no change")
        #expect(figures.kills > 0 && figures.drops > 0)
        // Bounded: far below what a leak per operation or an unbounded queue would reach.
        #expect(figures.peakResidentMiB < 3072, "peak RSS \(figures.peakResidentMiB) MiB")
        return figures
    }

    /// How many documents each writer keeps: enough that no document gets near the revision
    /// tree's depth (20) between two syncs in the 30-second run; longer runs do go past it,
    /// which is how the pulled-fork bug was found (docs/reliability.md).
    static let documentsPerWriter = 400

    /// Saves, updates and now and then deletes documents `<prefix>-0…` until the deadline.
    static func write(_ database: Database, prefix: String, seed: UInt64, until deadline: ContinuousClock.Instant,
                      acknowledged: Locked<Acknowledged>, counts: Locked<(writes: Int, reads: Int)>) throws {
        var random = SplitMix64(seed: seed)
        var value = 0
        while ContinuousClock().now < deadline {
            let id = "\(prefix)-\(Int.random(in: 0..<documentsPerWriter, using: &random))"
            value += 1
            if Int.random(in: 0..<12, using: &random) == 0, let existing = database.document(withID: id) {
                try database.deleteDocument(existing)
                acknowledged.withLock { $0[id] = .some(nil) }
            } else {
                let document = database.document(withID: id)?.toMutable() ?? MutableDocument(id: id)
                document.setInt(value, forKey: "value")
                document.setString("c\(value % 7)", forKey: "category")
                document.setString("w\(value % 11) w\(value % 13) \(prefix)", forKey: "text")
                try database.saveDocument(document)
                acknowledged.withLock { $0[id] = .some(value) }
            }
            counts.withLock { $0.writes += 1 }
            // Pacing: a steady load that leaves the two cores room for replication and, in
            // make test, for the suites running beside it (timing-sensitive replay tests).
            Thread.sleep(forTimeInterval: 0.03)
        }
    }

    /// Reads documents and runs an indexed query until the deadline.
    static func read(_ database: Database, seed: UInt64, until deadline: ContinuousClock.Instant,
                     counts: Locked<(writes: Int, reads: Int)>) throws {
        var random = SplitMix64(seed: seed)
        let query = try database.createQuery("SELECT META().id, value FROM _ WHERE category = $category")
        while ContinuousClock().now < deadline {
            if Bool.random(using: &random) {
                _ = database.document(withID: "w\(Int.random(in: 0..<4, using: &random))-\(Int.random(in: 0..<documentsPerWriter, using: &random))")?
                    .int(forKey: "value")
            } else {
                let parameters = Parameters()
                parameters.setString("c\(Int.random(in: 0..<7, using: &random))", forName: "category")
                query.parameters = parameters
                _ = try query.execute().allResults().count
            }
            counts.withLock { $0.reads += 1 }
            Thread.sleep(forTimeInterval: 0.04)
        }
    }

    /// Starts the child writer, lets it run 2–6 s, kills it; again until the deadline.
    /// - Returns: the number of kills.
    static func killChildRepeatedly(directory: String, url: URL, until deadline: ContinuousClock.Instant,
                                    acknowledged: Locked<Int>) throws -> Int {
        var random = SplitMix64(seed: 0xC41D)
        var kills = 0
        let writer = try #require(ToolRunner.productsDirectory).appendingPathComponent("database-crash-writer")
        while ContinuousClock().now < deadline {
            let process = Process()
            process.executableURL = writer
            process.arguments = ["soak", "sqlite", directory, url.absoluteString]
            let output = Pipe()
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()
            let lines = Thread {
                var reader = CommitLineReader(output.fileHandleForReading)
                reader.read(commits: .max) { number in acknowledged.withLock { $0 = max($0, number) } }
            }
            lines.start()
            // Pacing of the kills, not a wait for work.
            Thread.sleep(forTimeInterval: Double.random(in: 2...6, using: &random))
            #expect(process.isRunning, "the child writer stopped by itself")
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            kills += 1
        }
        return kills
    }

    static func runToCompletion(_ replicator: Replicator) async -> Replicator.Status {
        let statuses = replicator.statusChanges()
        replicator.start()
        var last = replicator.status
        for await status in statuses { last = status }
        return last
    }

    static func stop(_ replicator: Replicator) async {
        let statuses = replicator.statusChanges()
        replicator.stop()
        for await status in statuses where status.activity == .stopped { return }
    }

    /// Every document's revision ID.
    static func revisions(_ database: Database) throws -> [String: String] {
        var result: [String: String] = [:]
        for row in try database.createQuery("SELECT META().id FROM _").execute() {
            if let id = row.string(at: 0) { result[id] = database.document(withID: id)?.revisionID ?? "" }
        }
        return result
    }

    /// The value and full-text indexes give what a full scan gives.
    static func expectIndexesAgreeWithAScan(_ database: Database) throws {
        let all = try database.createQuery("SELECT META().id, category, text FROM _").execute().map {
            (id: $0.string(at: 0) ?? "", category: $0.string(at: 1) ?? "", text: $0.string(at: 2) ?? "")
        }
        for category in (0..<7).map({ "c\($0)" }) {
            let indexed = try database.createQuery("SELECT META().id FROM _ WHERE category = '\(category)'").execute()
                .compactMap { $0.string(at: 0) }
            #expect(Set(indexed) == Set(all.filter { $0.category == category }.map(\.id)),
                    "\(database.name): the value index disagrees with a scan for \(category)")
        }
        for word in ["w0", "w5", "w10"] {
            let indexed = try database.createQuery("SELECT META().id FROM _ WHERE MATCH(text, '\(word)')").execute()
                .compactMap { $0.string(at: 0) }
            let scanned = all.filter { $0.text.split(separator: " ").contains(Substring(word)) }.map(\.id)
            #expect(Set(indexed) == Set(scanned), "\(database.name): the full-text index disagrees with a scan for \(word)")
        }
    }
}
