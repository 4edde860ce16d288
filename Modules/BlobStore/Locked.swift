import Foundation

/// A small piece of state guarded by a lock, so a `Sendable` class can own mutable state.
///
/// `NSLock` rather than `Synchronization.Mutex` keeps the module building for the package's
/// macOS 14 platform, where `Mutex` is not available.
final class Locked<Value>: @unchecked Sendable {
    // Invariant: `value` is only touched while `lock` is held.
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    /// Runs `body` with exclusive access to the value.
    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
