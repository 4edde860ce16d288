import LiteSupport
import Testing

/// Runs each test of a suite with threads of the test suite's own as its task executor
/// preference, instead of Swift's cooperative pool (docs/decisions.md, Replication-31).
///
/// On the pool, every test's awaits queued behind the CPU-heavy synchronous tests that Swift
/// Testing starts all at once: a test with a time limit could wait there past its limit, and an
/// unstructured `Task` of any test could wait for minutes. With the trait, synchronous and async
/// test bodies run on ``untimedExecutor``, and tests with a time limit on ``timedExecutor``,
/// which the CPU-heavy ones never touch; the pool is left to Swift Testing's own bookkeeping and
/// the tests' unstructured tasks, which then get a thread at once.
///
/// ```swift
/// @Suite(.ownThreads) struct HandshakeTests { … }
/// ```
package struct OwnThreadsTrait: SuiteTrait, TestTrait, TestScoping {
    /// Tests with a time limit: most of their time is spent awaiting.
    static let timedExecutor = ThreadPoolExecutor(name: "timed tests", threadCount: 4)
    /// Every other test: as many threads as cores would leave blocked waits (a test waiting on
    /// a semaphore for replication) holding up the computing ones; twice that keeps both moving.
    static let untimedExecutor = ThreadPoolExecutor(name: "tests", threadCount: 4)

    package var isRecursive: Bool { true }

    package func provideScope(for test: Test, testCase: Test.Case?,
                              performing function: @Sendable () async throws -> Void) async throws {
        // A suite's own scope keeps Swift Testing's scheduling of its tests where it was.
        guard !test.isSuite else { return try await function() }
        let executor = test.timeLimit == nil ? Self.untimedExecutor : Self.timedExecutor
        try await withTaskExecutorPreference(executor) { try await function() }
    }
}

extension Trait where Self == OwnThreadsTrait {
    /// The test runs on threads of the test suite's own rather than on the cooperative pool
    /// (``OwnThreadsTrait``).
    package static var ownThreads: Self { OwnThreadsTrait() }
}
