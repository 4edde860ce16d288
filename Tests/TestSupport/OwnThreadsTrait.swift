import LiteSupport
import Testing

/// Runs a test (or every test of a suite) with threads of its own as its task executor
/// preference, so that its awaits resume there instead of queueing behind the suite's
/// CPU-heavy synchronous tests on Swift's cooperative pool. A test with a time limit takes it:
/// its limit then measures the code under test, not how long the pool took to give it a thread
/// (the time limit's own timer still runs on the pool, so a busy pool can only make a failure
/// late, never a pass a failure).
///
/// ```swift
/// @Suite(.timeLimit(.minutes(1)), .ownThreads) struct HandshakeTests { … }
/// ```
package struct OwnThreadsTrait: SuiteTrait, TestTrait, TestScoping {
    /// Shared by every test that takes the trait; most of their time is spent awaiting.
    static let executor = ThreadPoolExecutor(name: "test-threads", threadCount: 4)

    package var isRecursive: Bool { true }

    package func provideScope(for test: Test, testCase: Test.Case?,
                              performing function: @Sendable () async throws -> Void) async throws {
        try await withTaskExecutorPreference(Self.executor) { try await function() }
    }
}

extension Trait where Self == OwnThreadsTrait {
    /// The test runs on threads of its own rather than on the cooperative pool (``OwnThreadsTrait``).
    package static var ownThreads: Self { OwnThreadsTrait() }
}
