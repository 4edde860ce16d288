import Foundation

/// Runs blocking work (waiting for a child process, paced loops) on a thread of its own and
/// returns its result to async code.
///
/// Not `DispatchQueue.global()`: on Linux its few threads are shared with other work (two on the
/// two-core CI machine), so long blocking items there stalled unrelated async tests for minutes.
package func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
    }
}
