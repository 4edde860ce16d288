import CouchbaseLiteSwift
import Dispatch
import Foundation
import LiteStorage

/// `cblite-bench replication`: the travel set pushed to and pulled from a listener on
/// loopback (ws://, one-shot), against a plain local import of the same documents in the
/// same run; and the latency of one save through a continuous replication.
enum ReplicationBenchmarks: BenchmarkArea {
    static let name = "replication"
    static let summary = "Push/pull of the travel set through a loopback listener vs a local import; continuous latency."

    static func run(_ options: BenchmarkOptions) throws -> BenchmarkReport {
        // The travel hotels name blobs whose files the data set does not have: a replication
        // rightly refuses to send those (the peer cannot fetch the blob), so they are left out.
        var documents = try DocumentsBenchmarks.travelDocuments().filter { !$0.json.contains("\"digest\"") }
        if options.quick { documents = Array(documents.prefix(500)) }
        var report = BenchmarkReport(area: name)
        let scratch = try Scratch()
        var counter = 0
        func freshDatabase(_ label: String) throws -> Database {
            counter += 1
            let config = DatabaseConfiguration()
            config.directory = scratch.root + "/\(label)\(counter)"
            config.storageEngine = .sqlite
            return try Database(name: label, config: config)
        }
        func importAll(into database: Database) throws {
            try database.inBatch {
                for (id, json) in documents { try database.saveDocument(try MutableDocument(id: id, json: json)) }
            }
        }
        let source = try freshDatabase("source")
        defer { try? source.close() }
        try importAll(into: source)

        // Push: a fresh listener database each run, started untimed.
        var target: Database?
        var listener: URLEndpointListener?
        var pushed: Database?
        let (push, importTime) = try Stopwatch.pairedMedians(iterations: options.iterations, prepareOurs: {
            if let listener { blockOn { await listener.stop() } }
            try target?.close()
            let database = try freshDatabase("target")
            var config = URLEndpointListenerConfiguration(database: database)
            config.disableTLS = true
            config.networkInterface = "127.0.0.1"
            let started = URLEndpointListener(config: config)
            try blockOn { try await started.start() }
            target = database
            listener = started
        }, ours: {
            guard let url = listener?.urls.first else { throw StorageError(.engineFailure, "listener has no URL") }
            try replicate(source, url, .push)
            pushed = target
        }, baseline: {
            let database = try freshDatabase("import")
            try importAll(into: database)
            try database.close()
        })
        guard let pushedDatabase = pushed, pushedDatabase.count == UInt64(documents.count), let url = listener?.urls.first else {
            throw StorageError(.engineFailure, "push: the target does not hold the \(documents.count) documents")
        }
        report.rows.append(BenchmarkRow(workload: "push \(documents.count) docs to a ws:// listener (one-shot)", ours: push,
                                        baselineName: "local import of the same", baseline: importTime, maximumRatio: 2.0))

        // Pull the same from that listener into fresh databases.
        var pullTarget: Database?
        let pull = try Stopwatch.median(iterations: options.iterations, setup: {
            try pullTarget?.close()
            pullTarget = try freshDatabase("pull")
        }) { _ in
            guard let database = pullTarget else { return }
            try replicate(database, url, .pull)
            guard database.count == UInt64(documents.count) else {
                throw StorageError(.engineFailure, "pull: \(database.count) documents arrived, not \(documents.count)")
            }
        }
        try pullTarget?.close()
        report.rows.append(BenchmarkRow(workload: "pull \(documents.count) docs from the listener (one-shot)", ours: pull,
                                        baselineName: "local import of the same", baseline: importTime, maximumRatio: 2.0))

        // Continuous: one save, until it is on the listener's side.
        let config = ReplicatorConfiguration(database: source, target: URLEndpoint(url: url))
        config.replicatorType = .push
        config.continuous = true
        let replicator = Replicator(config: config)
        let idle = DispatchSemaphore(value: 0)
        let token = replicator.addChangeListener { change in if change.status.activity == .idle { idle.signal() } }
        replicator.start()
        idle.wait()
        replicator.removeChangeListener(withToken: token)
        var round = 0
        let arrived = DispatchSemaphore(value: 0)
        let arrival = pushedDatabase.addChangeListener { change in
            if change.documentIDs.contains(where: { $0.hasPrefix("latency-") }) { arrived.signal() }
        }
        let localArrived = DispatchSemaphore(value: 0)
        let localArrival = source.addChangeListener { change in
            if change.documentIDs.contains(where: { $0.hasPrefix("local-") }) { localArrived.signal() }
        }
        let (latency, local) = try Stopwatch.pairedMedians(iterations: max(options.iterations, 9), ours: {
            round += 1
            try source.saveDocument(MutableDocument(id: "latency-\(round)", data: ["n": round]))
            arrived.wait()
        }, baseline: {
            round += 1
            try source.saveDocument(MutableDocument(id: "local-\(round)", data: ["n": round]))
            localArrived.wait()
        })
        pushedDatabase.removeChangeListener(withToken: arrival)
        source.removeChangeListener(withToken: localArrival)
        replicator.stop()
        report.rows.append(BenchmarkRow(workload: "continuous push: one save until saved on the other side", ours: latency,
                                        baselineName: "local save + change listener", baseline: local, maximumRatio: nil))
        if let listener { blockOn { await listener.stop() } }
        try pushedDatabase.close()
        report.notes.append("Travel data set without the 20 hotels that name missing blobs (\(documents.count) documents), SQLite on both sides, ws:// on 127.0.0.1, one "
                            + "process. Target from the replication issue: push at least 0.5× the import rate (ratio ≤ 2).")
        return report
    }

    /// Runs a one-shot replicator to its end; throws its error.
    static func replicate(_ database: Database, _ url: URL, _ type: ReplicatorType) throws {
        let config = ReplicatorConfiguration(database: database, target: URLEndpoint(url: url))
        config.replicatorType = type
        let replicator = Replicator(config: config)
        let stopped = DispatchSemaphore(value: 0)
        let token = replicator.addChangeListener { change in if change.status.activity == .stopped { stopped.signal() } }
        replicator.start()
        stopped.wait()
        replicator.removeChangeListener(withToken: token)
        if let error = replicator.status.error { throw error }
    }

    /// Runs async work from the benchmark's synchronous code (the main thread waits).
    static func blockOn<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
        let box = ResultBox<T>()
        let done = DispatchSemaphore(value: 0)
        Task {
            do { box.set(.success(try await body())) } catch { box.set(.failure(error)) }
            done.signal()
        }
        done.wait()
        return try box.get()
    }

    static func blockOn(_ body: @escaping @Sendable () async -> Void) {
        let done = DispatchSemaphore(value: 0)
        Task {
            await body()
            done.signal()
        }
        done.wait()
    }
}

/// A result handed from a task to a waiting thread.
final class ResultBox<T: Sendable>: @unchecked Sendable {
    // @unchecked: written once before the semaphore is signalled, read after it is waited for.
    private var result: Swift.Result<T, any Error>?
    func set(_ value: Swift.Result<T, any Error>) { result = value }
    func get() throws -> T {
        guard let result else { throw StorageError(.engineFailure, "no result") }
        return try result.get()
    }
}
