#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A `pthread_mutex_t` on the heap, where it must stay (a pthread mutex may not move): the one
/// mutex under ``Locked`` and ``ThreadCondition``. Its owner calls ``destroy()`` once, in its
/// `deinit`.
struct PthreadMutex {
    /// The mutex, for `pthread_cond_wait`.
    let pointer: UnsafeMutablePointer<pthread_mutex_t>

    /// An unlocked mutex.
    init() {
        pointer = .allocate(capacity: 1)
        pointer.initialize(to: pthread_mutex_t())
        pthread_mutex_init(pointer, nil)
    }

    /// Frees the mutex; it must be unlocked and not used again.
    func destroy() {
        pthread_mutex_destroy(pointer)
        pointer.deinitialize(count: 1)
        pointer.deallocate()
    }

    /// Runs `body` holding the mutex.
    @inline(__always)
    func withLocked<Result>(_ body: () throws -> Result) rethrows -> Result {
        pthread_mutex_lock(pointer)
        defer { pthread_mutex_unlock(pointer) }
        return try body()
    }
}
