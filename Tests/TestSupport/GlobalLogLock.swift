import Foundation

/// Serialises tests (of any suite or target in the test process) that replace the process-wide
/// custom logger, so one test's logger is never swapped out under another.
package enum GlobalLogLock {
    private static let lock = NSLock()

    /// Runs `body` while no other test is changing the global loggers.
    package static func exclusive<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }
}
