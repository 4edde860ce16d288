import CouchbaseLiteSwift
import Foundation
import LiteSupport
import Testing
import TestSupport

/// An application that blocks every thread of Swift's cooperative pool (synchronous work in
/// `Task`s) must not stop its replication or its live queries: they run on threads of their own
/// (docs/decisions.md, Replication-31), as Couchbase Lite's replicator does.
///
/// Each case runs alone (`.ownThreadsAlone`): beside the suite's CPU-heavy tests the two cores
/// are shared by dozens of running threads and the push's thread hand-offs wait for the CPU, which
/// is not what this measures. So it takes no time limit (its wait for the others would count
/// against it); every wait of its own is bounded instead.
@Suite(.ownThreadsAlone) struct BusyApplicationTests {
    /// How long the pool is held: the ten seconds.
    static let busySeconds = 10.0

    @Test(arguments: StorageEngineKind.allCases)
    func pushAndLiveQueryKeepMovingWhileEveryPoolThreadIsBlocked(engine: StorageEngineKind) async throws {
        try await withTwoDatabases((engine, engine)) { source, target, _ in
            var listenerConfig = URLEndpointListenerConfiguration(database: target)
            listenerConfig.networkInterface = "127.0.0.1"
            listenerConfig.disableTLS = true
            let listener = URLEndpointListener(config: listenerConfig)
            try await listener.start()
            defer { Task { await listener.stop() } }
            let url = try #require(listener.urls.first)
            let config = ReplicatorConfiguration(database: source, target: URLEndpoint(url: url))
            config.replicatorType = .push
            config.continuous = true
            let replicator = Replicator(config: config)
            _ = try saved(source, "warm-up", ["n": 0])
            let watchdog = Task.detached {
                try? await Task.sleep(for: .seconds(TestTimeScale.seconds(120)))
                if !Task.isCancelled { replicator.stop() }
            }
            let first = await replicator.startAndWait(for: .idle)
            watchdog.cancel()
            try #require(first.activity == .idle, "the push never became idle")
            defer { replicator.stop() }

            // Everything from here runs on a thread of its own and only blocks: the test itself
            // must not need a pool thread while the pool is held.
            let outcome = try await onOwnThread { try Self.measure(source: source, target: target) }
            #expect(outcome.probeStartedAfterRelease,
                    "the pool was not saturated while the document travelled: the test proves nothing")
            #expect((outcome.pushed ?? .infinity) < TestTimeScale.seconds(1.0),
                    "the document reached the other side after \(outcome.pushed ?? .infinity) s")
            #expect((outcome.liveQuery ?? .infinity) < TestTimeScale.seconds(1.0),
                    "the live query told its listener after \(outcome.liveQuery ?? .infinity) s")
        }
    }

    struct Outcome: Sendable {
        /// Seconds from the save to the document's arrival in the target (nil: not within the busy time).
        var pushed: Double?
        /// Seconds from the save to the live query's listener seeing it (nil: not within the busy time).
        var liveQuery: Double?
        /// A task queued on the pool after the blockers held it started only once they let go.
        var probeStartedAfterRelease: Bool
    }

    static func measure(source: Database, target: Database) throws -> Outcome {
        // Each event's time is taken when it happens, not when the waits below return.
        let arrived = DispatchSemaphore(value: 0)
        let arrivedAt = Locked<Date?>(nil)
        let token = target.addDocumentChangeListener(withID: "busy", queue: DispatchQueue(label: "test.target")) { _ in
            arrivedAt.withLock { $0 = $0 ?? Date() }
            arrived.signal()
        }
        defer { target.removeChangeListener(withToken: token) }
        let query = QueryBuilder.select(SelectResult.expression(Meta.id)).from(DataSource.database(source))
            .where(Meta.id.equalTo(Expression.string("busy")))
        let seen = DispatchSemaphore(value: 0)
        let seenAt = Locked<Date?>(nil)
        let liveToken = query.addChangeListener(withQueue: DispatchQueue(label: "test.live")) { change in
            if let results = change.results, results.allResults().count == 1 {
                seenAt.withLock { $0 = $0 ?? Date() }
                seen.signal()
            }
        }
        defer { query.removeChangeListener(withToken: liveToken) }

        // More blocking tasks than the pool has threads; each holds its thread until released.
        let blockerCount = 2 * ProcessInfo.processInfo.activeProcessorCount + 2
        let started = Locked(0)
        let release = DispatchSemaphore(value: 0)
        for _ in 0..<blockerCount {
            Task.detached {
                started.withLock { $0 += 1 }
                Self.holdThread(until: release)
            }
        }
        // The pool is held once as many blockers run as it has threads (it may take a while
        // for the suite's other work on the pool to let go of them).
        let holdDeadline = Date().addingTimeInterval(300)
        while started.withLock({ $0 }) < ProcessInfo.processInfo.activeProcessorCount, Date() < holdDeadline {
            usleep(10_000)
        }
        let busySince = Date()
        let probe = Locked<Date?>(nil)
        Task.detached { probe.withLock { $0 = Date() } }

        let saveTime = Date()
        _ = try saved(source, "busy", ["n": 1])
        let busyUntil = busySince.addingTimeInterval(busySeconds)
        let pushed = arrived.wait(timeout: .now() + busyUntil.timeIntervalSinceNow) == .success
            ? arrivedAt.withLock { $0 }?.timeIntervalSince(saveTime) : nil
        let live = seen.wait(timeout: .now() + max(0, busyUntil.timeIntervalSinceNow)) == .success
            ? seenAt.withLock { $0 }?.timeIntervalSince(saveTime) : nil
        // Hold the pool for the whole busy time, then let every blocker go.
        let remaining = busyUntil.timeIntervalSinceNow
        if remaining > 0 { usleep(UInt32(remaining * 1_000_000)) }
        let releaseTime = Date()
        for _ in 0..<blockerCount { release.signal() }
        let probeStarted = probe.withLock { $0 }
        return Outcome(pushed: pushed, liveQuery: live,
                       probeStartedAfterRelease: probeStarted.map { $0 >= releaseTime } ?? true)
    }

    /// Blocks the calling thread (a pool thread, in the blockers) until `release` is signalled.
    static func holdThread(until release: DispatchSemaphore) {
        release.wait()
    }
}
