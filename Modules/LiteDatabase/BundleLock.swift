import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// An advisory `flock` on a database bundle folder, shared by every open database (in any
/// process) and exclusive while its files are replaced (an in-place engine conversion, or the
/// recovery of one a crash interrupted). So a conversion never starts under an open database,
/// and an open waits for a running conversion instead of deleting its half-built copy.
///
/// The kernel drops the lock when the holder's descriptor closes or its process dies, so a
/// crash leaves none behind. Two descriptors in one process conflict like two processes.
package final class BundleLock: Sendable {
    private let descriptor: Int32

    private init(descriptor: Int32) { self.descriptor = descriptor }

    deinit { close(descriptor) }

    /// Gives the lock up before the lock object goes away (closing twice is harmless).
    package func release() {
        flock(descriptor, LOCK_UN)
    }

    /// Takes the shared lock that an open database holds, waiting while someone converts it.
    package static func shared(bundlePath: String) throws -> BundleLock {
        let descriptor = try openFolder(bundlePath)
        try lock(descriptor, LOCK_SH, bundlePath: bundlePath)
        return BundleLock(descriptor: descriptor)
    }

    /// Takes the exclusive lock needed to replace the bundle's files.
    ///
    /// - Parameter wait: wait for other holders (true) or give up at once (false).
    /// - Returns: nil when `wait` is false and someone holds the lock.
    package static func exclusive(bundlePath: String, wait: Bool) throws -> BundleLock? {
        let descriptor = try openFolder(bundlePath)
        if wait {
            try lock(descriptor, LOCK_EX, bundlePath: bundlePath)
        } else if flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            close(descriptor)
            if code == EWOULDBLOCK { return nil }
            throw DatabaseError(.ioError, "cannot lock database folder \(bundlePath): \(String(cString: strerror(code)))")
        }
        return BundleLock(descriptor: descriptor)
    }

    private static func openFolder(_ path: String) throws -> Int32 {
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code = errno
            throw DatabaseError(code == ENOENT ? .notFound : .cantOpenFile,
                                "cannot open database folder \(path): \(String(cString: strerror(code)))")
        }
        return descriptor
    }

    private static func lock(_ descriptor: Int32, _ operation: Int32, bundlePath: String) throws {
        while flock(descriptor, operation) != 0 {
            let code = errno
            guard code == EINTR else {
                close(descriptor)
                throw DatabaseError(.ioError, "cannot lock database folder \(bundlePath): \(String(cString: strerror(code)))")
            }
        }
    }
}
