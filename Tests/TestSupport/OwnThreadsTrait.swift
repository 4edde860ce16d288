import LiteSupport
import Testing

/// Runs each test of a suite on threads of its own (an executor no other running test has) as
/// its task executor preference, instead of Swift's cooperative pool (docs/decisions.md,
/// Replication-31 and Reliability-5).
///
/// On the pool, every test's awaits queued behind the CPU-heavy synchronous tests that Swift
/// Testing starts all at once: a test with a time limit could wait there past its limit, and an
/// unstructured `Task` of any test could wait for minutes. A single shared executor of the suite
/// was not enough either (``TestExecutorPool`` says why). With the trait, each test's body and
/// child tasks run on an executor lent to it alone by ``TestExecutorPool``; at most
/// ``TestExecutorPool/width`` tests without a time limit run at once, and tests with a time limit
/// start at once. The pool is left to Swift Testing's own bookkeeping and the tests' unstructured
/// tasks, which then get a thread at once.
///
/// ```swift
/// @Suite(.ownThreads) struct HandshakeTests { … }
/// ```
package struct OwnThreadsTrait: SuiteTrait, TestTrait, TestScoping {
    /// Whether each test case runs with no other test of the pool running (``ownThreadsAlone``).
    package var alone = false

    package var isRecursive: Bool { true }

    package func provideScope(for test: Test, testCase: Test.Case?,
                              performing function: @Sendable () async throws -> Void) async throws {
        // A suite's own scope keeps Swift Testing's scheduling of its tests where it was; only a
        // test case (every test function has at least one) takes a slot, so that nothing that
        // holds a slot ever waits for another.
        guard !test.isSuite, testCase != nil else { return try await function() }
        try await TestExecutorPool.shared.run(gated: test.timeLimit == nil, exclusive: alone) { executor in
            try await withTaskExecutorPreference(executor) { try await function() }
        }
    }
}

extension Trait where Self == OwnThreadsTrait {
    /// The test runs on threads of the test suite's own rather than on the cooperative pool
    /// (``OwnThreadsTrait``).
    package static var ownThreads: Self { OwnThreadsTrait() }

    /// As ``ownThreads``, and each test case runs alone: it waits until no other test runs and
    /// none starts until it ends. For a test that measures latency (with the suite's CPU-heavy
    /// tests beside it, it would measure them). Such a test should take no time limit, since the
    /// wait would count against it; every wait of its own must be bounded instead.
    package static var ownThreadsAlone: Self { OwnThreadsTrait(alone: true) }
}
