#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The identity of the calling OS thread, used to tell which thread owns a transaction or a
/// read snapshot (both are bound to the thread that opened them, like LiteCore's).
package enum ThreadID {
    /// A non-zero number identifying the calling thread while it runs.
    package static var current: UInt {
        #if canImport(Darwin)
        UInt(bitPattern: pthread_self())
        #else
        UInt(pthread_self())
        #endif
    }
}
