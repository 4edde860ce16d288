import FoundationEssentials

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An open POSIX file descriptor with the few calls the blob store needs, each throwing an
/// error that names the file and carries `errno`.
///
/// Plain system calls keep memory flat while streaming (no Foundation buffering) and give
/// `O_EXCL` creation, `fsync` and `rename` exactly as the store's invariants need them.
struct FileDescriptor {
    let rawValue: Int32
    /// The file's path, for error messages.
    let path: String

    /// Opens `path` for reading.
    static func openForReading(_ path: String) throws(POSIXFailure) -> FileDescriptor {
        try open(path, flags: O_RDONLY | O_CLOEXEC, mode: 0)
    }

    /// Creates `path`, which must not exist yet, for writing.
    static func createExclusively(_ path: String) throws(POSIXFailure) -> FileDescriptor {
        try open(path, flags: O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode: 0o644)
    }

    private static func open(_ path: String, flags: Int32, mode: mode_t) throws(POSIXFailure)
        -> FileDescriptor {
        while true {
            let descriptor = systemOpen(path, flags, mode)
            if descriptor >= 0 { return FileDescriptor(rawValue: descriptor, path: path) }
            if errno != EINTR { throw POSIXFailure(operation: "open", path: path) }
        }
    }

    /// Reads up to `buffer.count` bytes; returns 0 at the end of the file.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(POSIXFailure) -> Int {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        while true {
            let count = systemRead(rawValue, base, buffer.count)
            if count >= 0 { return count }
            if errno != EINTR { throw POSIXFailure(operation: "read", path: path) }
        }
    }

    /// Reads from `offset` until `buffer` is full or the file ends; returns the bytes read.
    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws(POSIXFailure) -> Int {
        guard let base = buffer.baseAddress else { return 0 }
        var filled = 0
        while filled < buffer.count {
            let count = systemPositionedRead(rawValue, base + filled, buffer.count - filled, off_t(offset) + off_t(filled))
            if count == 0 { break }
            if count < 0 {
                if errno == EINTR { continue }
                throw POSIXFailure(operation: "pread", path: path)
            }
            filled += count
        }
        return filled
    }

    /// Writes all of `buffer`, retrying short writes.
    func writeAll(_ buffer: UnsafeRawBufferPointer) throws(POSIXFailure) {
        guard var next = buffer.baseAddress else { return }
        var remaining = buffer.count
        while remaining > 0 {
            let count = systemWrite(rawValue, next, remaining)
            if count < 0 {
                if errno == EINTR { continue }
                throw POSIXFailure(operation: "write", path: path)
            }
            next += count
            remaining -= count
        }
    }

    /// Flushes the file's content to stable storage.
    func synchronize() throws(POSIXFailure) {
        guard fsync(rawValue) == 0 else { throw POSIXFailure(operation: "fsync", path: path) }
    }

    /// Makes the file read-only for everyone (`r--r--r--`).
    func makeReadOnly() throws(POSIXFailure) {
        guard fchmod(rawValue, 0o444) == 0 else { throw POSIXFailure(operation: "fchmod", path: path) }
    }

    /// The file's current size in bytes.
    func size() throws(POSIXFailure) -> Int64 {
        var status = stat()
        guard fstat(rawValue, &status) == 0 else { throw POSIXFailure(operation: "fstat", path: path) }
        return Int64(status.st_size)
    }

    /// Closes the descriptor; the value must not be used afterwards.
    func close() {
        // The descriptor is released even when close reports an error, so never retry it.
        _ = systemClose(rawValue)
    }
}
