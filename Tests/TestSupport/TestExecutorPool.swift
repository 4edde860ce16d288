import Foundation
import LiteSupport

/// Gives each running test an executor of its own, and lets at most ``width`` untimed tests run
/// at once (``OwnThreadsTrait``).
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
        var running = 0
        var waiting: [CheckedContinuation<Void, Never>] = []
        var idle: [ThreadPoolExecutor] = []
        var made = 0
    }
    private let state = Locked(State())

    /// A pool that runs at most `width` gated tests at once.
    package init(width: Int) {
        self.width = max(1, width)
    }

    /// Runs `body` with an executor no other running test has; with `gated`, first waits (in
    /// order of arrival) until fewer than ``width`` gated bodies run. Tests with a time limit are
    /// not gated: a wait here would count against their limit.
    package func run<Result>(gated: Bool,
                             _ body: (ThreadPoolExecutor) async throws -> Result) async rethrows -> Result {
        if gated { await enter() }
        let executor = takeExecutor()
        defer {
            state.withLock { $0.idle.append(executor) }
            if gated { leave() }
        }
        return try await Self.$lent.withValue(executor) { try await body(executor) }
    }

    private func enter() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let admitted = state.withLock { state -> Bool in
                guard state.running < width else {
                    state.waiting.append(continuation)
                    return false
                }
                state.running += 1
                return true
            }
            if admitted { continuation.resume() }
        }
    }

    private func leave() {
        // The slot passes straight to the next waiter, so `running` stays as it is then.
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if state.waiting.isEmpty {
                state.running -= 1
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.resume()
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
