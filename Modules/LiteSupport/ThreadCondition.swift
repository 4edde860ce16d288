#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A pthread mutex with a condition variable: what Foundation's `NSCondition` offers, without
/// linking Foundation into the tools (docs/decisions.md, Tools-18), and understood by the thread
/// sanitizer as ``Locked`` is.
///
/// ```swift
/// condition.lock()
/// while !ready { condition.wait() }
/// condition.unlock()
/// ```
package final class ThreadCondition: @unchecked Sendable {
    // @unchecked: the pthread objects are only used through their own thread-safe calls.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>

    /// An unlocked mutex and its condition.
    package init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        condition = .allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        condition.deinitialize(count: 1)
        condition.deallocate()
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Locks the mutex (not reentrant).
    package func lock() { pthread_mutex_lock(mutex) }

    /// Unlocks the mutex.
    package func unlock() { pthread_mutex_unlock(mutex) }

    /// Unlocks, sleeps until signalled (or woken spuriously: callers loop on their predicate),
    /// and locks again. The mutex must be locked by the caller.
    package func wait() { pthread_cond_wait(condition, mutex) }

    /// Wakes one waiter.
    package func signal() { pthread_cond_signal(condition) }

    /// Wakes every waiter.
    package func broadcast() { pthread_cond_broadcast(condition) }
}
