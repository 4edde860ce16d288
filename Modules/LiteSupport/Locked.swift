/// A value that only one thread touches at a time, guarded by a `pthread_mutex_t`.
///
/// Used instead of `Synchronization.Mutex` because the thread sanitizer does not model
/// `Mutex` on Linux: accesses it orders correctly are reported as races, which would hide real
/// ones (`make tsan` must report nothing). A pthread mutex is what the sanitizer understands.
///
/// ```swift
/// let counter = Locked(0)
/// counter.withLock { $0 += 1 }
/// ```
///
/// Sendable only when `Value` is (as NIO's `NIOLockedValueBox`): the lock orders the accesses,
/// but a non-Sendable value handed out of `withLock` could still be shared unguarded.
package final class Locked<Value> {
    private let mutex = PthreadMutex()
    // Unchecked: the mutex already makes every access exclusive (and the run-time check cost
    // as much as an uncontended lock).
    @exclusivity(unchecked) private var value: Value

    /// Guards `value`.
    package init(_ value: Value) {
        self.value = value
    }

    deinit { mutex.destroy() }

    /// Runs `body` with exclusive access to the value. Not reentrant: `body` must not call
    /// `withLock` on the same instance.
    @inline(__always)
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try mutex.withLocked { try body(&value) }
    }
}

// Unchecked: `value` is only read or written between `pthread_mutex_lock` and `unlock`, and it
// is Sendable itself, so what `withLock` hands out may cross threads.
extension Locked: @unchecked Sendable where Value: Sendable {}
