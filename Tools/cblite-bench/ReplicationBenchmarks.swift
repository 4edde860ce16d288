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
            // A name of its own, so its listener's URL is new even when the kernel hands out a
            // port again: a push to a URL it has pushed to skips what that remote already has.
            return try Database(name: "\(label)\(counter)", config: config)
        }
        func importAll(into database: Database) throws {
            try database.inBatch {
                for (id, json) in documents { try database.saveDocument(try MutableDocument(id: id, json: json)) }
            }
        }
        // Push: a fresh copy of the documents and a fresh listener database each run, both made
        // untimed, so every run is a database's first push to its server (remote #1, which a
        // push marks with the synced flag). Pushing one database to a new listener each run made
        // runs 2–7 pushes to further servers (remotes #2–#7), whose revision is recorded in every
        // document (read and rewritten): that case has its own row below.
        var pushSource: Database?
        defer { try? pushSource?.close() }
        var target: Database?
        var listener: URLEndpointListener?
        var pushed: Database?
        // Process CPU time per run too (user + system, every thread): on this shared machine
        // wall time moves with other people's load, CPU time much less; and CPU time over wall
        // time says how much of the push ran on two cores at once.
        var pushCPU: [Duration] = []
        var importCPU: [Duration] = []
        let (push, importTime) = try Stopwatch.pairedMedians(iterations: options.iterations, prepareOurs: {
            if let listener { blockOn { await listener.stop() } }
            try target?.close()
            try pushSource?.close()
            let copy = try freshDatabase("source")
            try importAll(into: copy)
            // Closed and opened again, as a database an app pushes usually was: closing
            // checkpoints the import's write-ahead log, which the push's first commit would
            // otherwise do (on a freshly imported copy that cost the push about a tenth).
            try copy.close()
            pushSource = try Database(name: copy.name, config: copy.config)
            let database = try freshDatabase("target")
            let started = try loopbackListener(serving: database)
            target = database
            listener = started
        }, settleOurs: {
            // The target's background checkpoint is not the import's to pay for.
            target?.waitForBackgroundWork()
        }, ours: {
            guard let url = listener?.urls.first, let pushSource else {
                throw StorageError(.unexpectedError, "listener has no URL")
            }
            try measuringCPU(into: &pushCPU) { try replicate(pushSource, url, .push) }
            pushed = target
        }, baseline: {
            try measuringCPU(into: &importCPU) {
                let database = try freshDatabase("import")
                try importAll(into: database)
                try database.close()
            }
        })
        guard let pushedDatabase = pushed, pushedDatabase.count == UInt64(documents.count), let url = listener?.urls.first,
              let source = pushSource else {
            throw StorageError(.unexpectedError, "push: the target does not hold the \(documents.count) documents")
        }
        report.rows.append(BenchmarkRow(workload: "push \(documents.count) docs to a ws:// listener (one-shot)", ours: push,
                                        baselineName: "local import of the same", baseline: importTime, maximumRatio: 2.0))
        if ProcessInfo.processInfo.environment["REPLICATION_PUSH_ONLY"] != nil {
            // For profiling the push alone (`REPLICATION_PUSH_ONLY=1 perf record …`).
            report.notes.append(String(format: "Process CPU time, median: push %.0f ms = %.2f× the import's %.0f ms (%.2f cores busy).",
                                       median(pushCPU).seconds * 1000, median(pushCPU).seconds / max(median(importCPU).seconds, 1e-9),
                                       median(importCPU).seconds * 1000, median(pushCPU).seconds / max(push.seconds, 1e-9)))
            return report
        }

        // Pull the same from that listener into fresh databases.
        var pullTarget: Database?
        var pullCPU: [Duration] = []
        let pull = try Stopwatch.median(iterations: options.iterations, setup: {
            try pullTarget?.close()
            pullTarget = try freshDatabase("pull")
        }) { _ in
            guard let database = pullTarget else { return }
            try measuringCPU(into: &pullCPU) { try replicate(database, url, .pull) }
            guard database.count == UInt64(documents.count) else {
                throw StorageError(.unexpectedError, "pull: \(database.count) documents arrived, not \(documents.count)")
            }
        }
        try pullTarget?.close()
        report.rows.append(BenchmarkRow(workload: "pull \(documents.count) docs from the listener (one-shot)", ours: pull,
                                        baselineName: "local import of the same", baseline: importTime, maximumRatio: 2.0))
        let (pushCPUTime, pullCPUTime, importCPUTime) = (median(pushCPU), median(pullCPU), median(importCPU))
        report.notes.append(String(format: "Process CPU time (user + system, all threads), median: push %.0f ms = %.2f× the import's "
                                   + "%.0f ms (%.2f cores busy on average while pushing), pull %.0f ms = %.2f× (%.2f cores).",
                                   pushCPUTime.seconds * 1000, pushCPUTime.seconds / max(importCPUTime.seconds, 1e-9),
                                   importCPUTime.seconds * 1000, pushCPUTime.seconds / max(push.seconds, 1e-9),
                                   pullCPUTime.seconds * 1000, pullCPUTime.seconds / max(importCPUTime.seconds, 1e-9),
                                   pullCPUTime.seconds / max(pull.seconds, 1e-9)))

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
        try pushToFurtherServers(from: source, options, report: &report, importTime: importTime,
                                 importedCount: documents.count, freshDatabase: freshDatabase)
        try pushBlobs(options, report: &report, scratch: scratch, freshDatabase: freshDatabase)
        try pushWithTools(documents, options, report: &report, scratch: scratch)
        report.notes.append("Travel data set without the 20 hotels that name missing blobs (\(documents.count) documents), SQLite on both sides, ws:// on 127.0.0.1, one "
                            + "process. Target from the replication issue: push at least 0.5× the import rate (ratio ≤ 2).")
        return report
    }

    /// The same documents, already pushed to one listener, pushed to a new listener each run:
    /// remotes #2, #3, …, for which every pushed document records that server's revision in its
    /// tree (read and rewritten: LiteCore's `markSynced` does the same), where a first push
    /// only sets the synced flag.
    static func pushToFurtherServers(from source: Database, _ options: BenchmarkOptions, report: inout BenchmarkReport,
                                     importTime: Duration, importedCount: Int,
                                     freshDatabase: (String) throws -> Database) throws {
        var target: Database?
        var listener: URLEndpointListener?
        defer {
            if let listener { blockOn { await listener.stop() } }
            try? target?.close()
        }
        let push = try Stopwatch.median(iterations: options.iterations, setup: {
            if let listener { blockOn { await listener.stop() } }
            try target?.close()
            let database = try freshDatabase("further")
            listener = try loopbackListener(serving: database)
            target = database
        }) { _ in
            guard let url = listener?.urls.first, let target else { throw StorageError(.unexpectedError, "listener has no URL") }
            try replicate(source, url, .push)
            guard target.count == source.count else {
                throw StorageError(.unexpectedError, "push to a further server: \(target.count) of \(source.count) documents arrived")
            }
        }
        report.rows.append(BenchmarkRow(workload: "push the same \(source.count) docs to a further listener (remote #2+)",
                                        ours: push, baselineName: "local import of the \(importedCount)", baseline: importTime,
                                        maximumRatio: nil))
    }

    /// The same push as whole processes: `cblite push` to `cblite serve` against `cblite import`,
    /// for our tool and, with `CBLITE_REFERENCE`, for Couchbase Lite 2.8's, whose ratio says what
    /// the real replicator's protocol costs beside its own import.
    static func pushWithTools(_ documents: [(id: String, json: String)], _ options: BenchmarkOptions,
                              report: inout BenchmarkReport, scratch: Scratch) throws {
        guard let ours = try? CLIBenchmarks.ourTool() else {  // allowed: the rows need a release cblite
            report.notes.append("No release `cblite` beside `cblite-bench`: the whole-process push rows were skipped.")
            return
        }
        let folder = try scratch.freshFolder()
        let bench = ToolReplicationBenchmark(folder: folder, lines: documents.map(\.json).joined(separator: "\n") + "\n",
                                             iterations: max(options.iterations, 5))
        let our = try bench.measure(.ours(ours))
        report.rows.append(BenchmarkRow(workload: "cblite push to cblite serve (whole processes)", ours: our.push,
                                        baselineName: "cblite import of the same", baseline: our.importTime,
                                        maximumRatio: nil))
        guard let reference = ProcessInfo.processInfo.environment["CBLITE_REFERENCE"] else { return }
        let real = try bench.measure(.real(reference))
        report.rows.append(BenchmarkRow(workload: "real 2.8 cblite push to its cblite serve (not ours)", ours: real.push,
                                        baselineName: "its cblite cp of the same", baseline: real.importTime,
                                        maximumRatio: nil))
        report.rows.append(BenchmarkRow(workload: "our cblite push vs the real 2.8 one (whole processes)", ours: our.push,
                                        baselineName: "real 2.8 cblite push", baseline: real.push, maximumRatio: nil))
    }

    /// Issue 14's memory bound: pushing documents with 200 MB of blobs through a listener may
    /// raise the process's resident memory by less than this.
    static let blobMemoryBound = 64 * 1024 * 1024

    /// Pushes 4 documents with a 50 MB blob each (generated, fixed seeds) to a listener: the
    /// rise of the peak resident memory in the first push, then the time against saving the
    /// same documents with their blobs into a local database.
    static func pushBlobs(_ options: BenchmarkOptions, report: inout BenchmarkReport, scratch: Scratch,
                          freshDatabase: (String) throws -> Database) throws {
        let blobCount = 4
        let blobSize = (options.quick ? 5 : 50) * 1024 * 1024
        // Random bytes do not deflate: typed as media, as such content usually is, so neither
        // side spends the push compressing them (a compressible type is tested in the suites).
        func saveDocuments(into database: Database) throws {
            for index in 0..<blobCount {
                let document = MutableDocument(id: "blob-\(index)")
                document.setBlob(Blob(contentType: "video/mp4",
                                      contentStream: GeneratedInputStream(byteCount: blobSize, seed: UInt64(index + 1) * 7919)),
                                 forKey: "video")
                try database.saveDocument(document)
            }
        }
        let source = try freshDatabase("blobsource")
        defer { try? source.close() }
        try saveDocuments(into: source)
        var target: Database?
        var listener: URLEndpointListener?
        func startListener() throws {
            if let listener { blockOn { await listener.stop() } }
            try target?.close()
            let database = try freshDatabase("blobtarget")
            let started = try loopbackListener(serving: database)
            target = database
            listener = started
        }
        func pushToListener() throws {
            guard let url = listener?.urls.first else { throw StorageError(.unexpectedError, "listener has no URL") }
            try replicate(source, url, .push)
            guard let target, target.count == UInt64(blobCount),
                  target.document(withID: "blob-0")?.blob(forKey: "video")?.length == UInt64(blobSize) else {
                throw StorageError(.unexpectedError, "blob push: the target does not hold the \(blobCount) documents and blobs")
            }
        }

        // Memory first, with the peak reset so what ran before does not count.
        try startListener()
        let resetPeak = ProcessMemory.resetPeak()
        let before = ProcessMemory.current()
        try pushToListener()
        let after = ProcessMemory.current()
        let total = blobCount * blobSize / (1024 * 1024)
        if let before, let after {
            let extra = after.peak - before.resident
            let bound = options.quick ? "" : String(format: "; bound %d MB: %@", blobMemoryBound / (1024 * 1024),
                                                    extra < blobMemoryBound ? "within" : "OVER")
            report.notes.append(String(format: "Extra resident memory pushing %d documents with %d MB of blobs in all (%d × %d MB) "
                + "to a ws:// listener in the same process: %.1f MB (VmHWM %.1f MB − VmRSS before %.1f MB%@)%@.",
                blobCount, total, blobCount, blobSize / (1024 * 1024), Double(extra) / 1_048_576,
                Double(after.peak) / 1_048_576, Double(before.resident) / 1_048_576,
                resetPeak ? ", peak reset first" : ", peak not resettable", bound))
        } else {
            report.notes.append("Extra resident memory pushing blobs: not measured (/proc/self/status unreadable).")
        }

        let (push, local) = try Stopwatch.pairedMedians(iterations: min(options.iterations, 3), prepareOurs: {
            try startListener()
        }, settleOurs: {
            target?.waitForBackgroundWork()
        }, ours: {
            try pushToListener()
        }, baseline: {
            let database = try freshDatabase("blobimport")
            try saveDocuments(into: database)
            try database.close()
        })
        if let listener { blockOn { await listener.stop() } }
        try target?.close()
        report.rows.append(BenchmarkRow(workload: "push \(blobCount) docs with \(total) MB of blobs to a ws:// listener",
                                        ours: push, baselineName: "local save of the same from streams", baseline: local,
                                        maximumRatio: nil))
    }

    /// Runs `body` and appends the process CPU time it took (user + system, all threads).
    private static func measuringCPU(into times: inout [Duration], _ body: () throws -> Void) throws {
        let start = processCPUTime()
        try body()
        times.append(processCPUTime() - start)
    }

    /// The CPU time this process has used so far, every thread included.
    private static func processCPUTime() -> Duration {
        var usage = rusage()
        guard getrusage(RUSAGE_SELF.rawValue, &usage) == 0 else { return .zero }
        func duration(_ time: timeval) -> Duration { .seconds(time.tv_sec) + .microseconds(time.tv_usec) }
        return duration(usage.ru_utime) + duration(usage.ru_stime)
    }

    private static func median(_ times: [Duration]) -> Duration {
        times.isEmpty ? .zero : times.sorted()[times.count / 2]
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
    /// A started ws:// listener on 127.0.0.1 serving `database`.
    private static func loopbackListener(serving database: Database) throws -> URLEndpointListener {
        var config = URLEndpointListenerConfiguration(database: database)
        config.disableTLS = true
        config.networkInterface = "127.0.0.1"
        let listener = URLEndpointListener(config: config)
        try blockOn { try await listener.start() }
        return listener
    }
}

/// A result handed from a task to a waiting thread.
final class ResultBox<T: Sendable>: @unchecked Sendable {
    // @unchecked: written once before the semaphore is signalled, read after it is waited for.
    private var result: Swift.Result<T, any Error>?
    func set(_ value: Swift.Result<T, any Error>) { result = value }
    func get() throws -> T {
        guard let result else { throw StorageError(.unexpectedError, "no result") }
        return try result.get()
    }
}
