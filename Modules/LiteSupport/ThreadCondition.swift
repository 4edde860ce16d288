#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A value guarded by a pthread mutex, with a condition variable to wait on until the value is
/// ready: what Foundation's `NSCondition` offered, without linking Foundation into the tools
/// (docs/decisions.md, Tools-18), and understood by the thread sanitizer as ``Locked`` is.
///
/// Like ``Locked``, Sendable only when `Value` is. A wait happens between reads of the value,
/// never inside an access to it: `withLock(when:_:)` evaluates its predicate afresh after every
/// wake-up.
///
/// ```swift
/// let queue = ThreadCondition([Int]())
/// queue.withLock { $0.append(1); queue.signal() }
/// let first = queue.withLock(when: { !$0.isEmpty }) { $0.removeFirst() }
/// ```
package final class ThreadCondition<Value> {
    private let mutex = PthreadMutex()
    private let condition: UnsafeMutablePointer<pthread_cond_t>
    // Unchecked: the mutex already makes every access exclusive (as in `Locked`).
    @exclusivity(unchecked) private var value: Value

    /// An unlocked mutex guarding `value`, and its condition.
    package init(_ value: Value) {
        self.value = value
        condition = .allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        condition.deinitialize(count: 1)
        condition.deallocate()
        mutex.destroy()
    }

    /// Runs `body` with exclusive access to the value. Not reentrant.
    @inline(__always)
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try mutex.withLocked { try body(&value) }
    }

    /// Locks, sleeps until `isReady` holds for the value (releasing the lock while asleep and
    /// asking again after every wake-up, spurious ones included), then runs `body` with
    /// exclusive access to it. Not reentrant.
    @inline(__always)
    package func withLock<Result>(when isReady: (Value) -> Bool,
                                  _ body: (inout Value) throws -> Result) rethrows -> Result {
        try mutex.withLocked {
            while !isReady(value) { pthread_cond_wait(condition, mutex.pointer) }
            return try body(&value)
        }
    }

    /// Wakes one waiter.
    package func signal() { pthread_cond_signal(condition) }

    /// Wakes every waiter.
    package func broadcast() { pthread_cond_broadcast(condition) }
}

// Unchecked: `value` is only read or written with the mutex locked, and it is Sendable itself;
// the pthread objects are only used through their own thread-safe calls.
extension ThreadCondition: @unchecked Sendable where Value: Sendable {}
