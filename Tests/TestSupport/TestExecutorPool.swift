import Foundation
import LiteSupport

/// Gives each running test an executor of its own, and lets at most ``width`` untimed tests run
/// at once, or one exclusive test alone (``OwnThreadsTrait``).
///
/// Why not one shared executor: its jobs run in the order they were queued, and Swift Testing
/// starts every test at once, so a test that awaited anything (a reply, a timer) queued its next
/// step behind the start of every test not yet begun. The first input of a replication fuzzer
/// waited 116 s that way on this machine and 285 s on CI. With an executor per running test, a
/// test's next step waits only for that test's own work; the gate keeps the CPU-heavy tests
/// from all running at once instead of queueing.
///
/// ```swift
/// try await TestExecutorPool.shared.run(gated: true) { executor in
///     try await withTaskExecutorPreference(executor) { try await body() }
/// }
/// ```
package final class TestExecutorPool: Sendable {
    /// The pool the test suite shares.
    package static let shared = TestExecutorPool(width: max(8, 4 * ProcessInfo.processInfo.activeProcessorCount))

    /// The executor lent to the running test (nil outside ``run(gated:_:)``).
    @TaskLocal package static var lent: ThreadPoolExecutor?

    /// How many gated tests run at once.
    package let width: Int

    private struct State {
        /// Gate slots held (an exclusive test holds all of them).
        var running = 0
        /// Tests with a time limit running (they take no slot).
        var timedRunning = 0
        var waiting: [Waiter] = []
        var idle: [ThreadPoolExecutor] = []
        var made = 0
    }
    private struct Waiter {
        var exclusive: Bool
        var continuation: CheckedContinuation<Void, Never>
    }
    private let state = Locked(State())

    /// A pool that runs at most `width` gated tests at once.
    package init(width: Int) {
        self.width = max(1, width)
    }

    /// How many tests wait at the gate (for tests of the pool itself).
    package var waitingCount: Int { state.withLock { $0.waiting.count } }

    /// Runs `body` with an executor no other running test has; with `gated`, first waits (in
    /// order of arrival) until fewer than ``width`` gated bodies run. Tests with a time limit are
    /// not gated: a wait here would count against their limit. An `exclusive` body is gated and
    /// runs alone: it waits until no other test of the pool runs, and no gated test starts until
    /// it ends (for a test that measures latency, which the suite's other CPU-heavy tests would
    /// otherwise measure instead).
    package func run<Result>(gated: Bool, exclusive: Bool = false,
                             _ body: (ThreadPoolExecutor) async throws -> Result) async rethrows -> Result {
        let gated = gated || exclusive
        if gated { await enter(exclusive: exclusive) } else { state.withLock { $0.timedRunning += 1 } }
        let executor = takeExecutor()
        defer {
            state.withLock { $0.idle.append(executor) }
            leave(slots: gated ? (exclusive ? width : 1) : 0)
        }
        return try await Self.$lent.withValue(executor) { try await body(executor) }
    }

    private func enter(exclusive: Bool) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let admitted = state.withLock { state -> Bool in
                guard state.waiting.isEmpty, admit(exclusive: exclusive, into: &state) else {
                    state.waiting.append(Waiter(exclusive: exclusive, continuation: continuation))
                    return false
                }
                return true
            }
            if admitted { continuation.resume() }
        }
    }

    /// Takes the slots a test needs if they are free now: one, or all of them for an exclusive
    /// test, which also needs every timed test to have ended.
    private func admit(exclusive: Bool, into state: inout State) -> Bool {
        if exclusive {
            guard state.running == 0, state.timedRunning == 0 else { return false }
            state.running = width
        } else {
            guard state.running < width else { return false }
            state.running += 1
        }
        return true
    }

    private func leave(slots: Int) {
        // Waiters are admitted in order of arrival while the first of them fits.
        let admitted = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            if slots == 0 { state.timedRunning -= 1 } else { state.running -= slots }
            var admitted: [CheckedContinuation<Void, Never>] = []
            while let first = state.waiting.first, admit(exclusive: first.exclusive, into: &state) {
                admitted.append(state.waiting.removeFirst().continuation)
            }
            return admitted
        }
        for continuation in admitted { continuation.resume() }
    }

    private func takeExecutor() -> ThreadPoolExecutor {
        state.withLock { state in
            if let executor = state.idle.popLast() { return executor }
            state.made += 1
            // Four threads: a test whose child tasks block on each other (writers waiting on a
            // lock another child holds) must not deadlock on a single thread.
            return ThreadPoolExecutor(name: "test \(state.made)", threadCount: 4)
        }
    }
}
