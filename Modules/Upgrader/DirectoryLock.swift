import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// An exclusive `flock` on a folder, held while an upgrade builds, swaps or cleans up in it,
/// so that two opens of one 1.x database (threads or processes) never work in the same staging
/// folder at once. The kernel releases it when the process dies, so a crash leaves no lock.
enum DirectoryLock {
    /// Runs `body` holding the lock on `directory`, waiting for another holder to finish.
    static func withLock<T>(on directory: String, _ body: () throws -> T) throws -> T {
        let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw CocoaError(.fileReadNoPermission, userInfo: [
                "NSFilePath": directory,
                "NSUnderlyingError": POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO),
            ])
        }
        defer { close(descriptor) }
        while flock(descriptor, LOCK_EX) != 0 {
            guard errno == EINTR else {
                throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            }
        }
        defer { flock(descriptor, LOCK_UN) }
        return try body()
    }
}
