#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A file opened for reading from the start, in chunks: what the format readers used
/// Foundation's `FileHandle` for, in code the tools link without Foundation (Tools-18). The
/// descriptor is closed when the value goes away.
///
/// Not for a SQLite database file this process may have open: closing any descriptor of a file
/// drops every POSIX lock the process holds on it, SQLite's included (read those through
/// `SQLiteFileStart`, Storage-38). A `-wal` file or any other file is fine.
///
/// ```swift
/// guard let file = ReadOnlyFile(path: walPath), let header = file.read(upToCount: 32) else { return nil }
/// ```
package final class ReadOnlyFile {
    /// The open descriptor; -1 once ``close()`` ran.
    package private(set) var descriptor: Int32

    /// Opens `path`; nil when it cannot be opened.
    package init?(path: String) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        self.descriptor = descriptor
    }

    deinit { close() }

    /// Closes the file now rather than when the value goes away (later calls do nothing).
    package func close() {
        guard descriptor >= 0 else { return }
        #if canImport(Glibc)
        _ = Glibc.close(descriptor)
        #elseif canImport(Musl)
        _ = Musl.close(descriptor)
        #else
        _ = Darwin.close(descriptor)
        #endif
        descriptor = -1
    }

    /// The next bytes, up to `count` (fewer only at the end of the file; empty there); nil
    /// when reading fails.
    package func read(upToCount count: Int) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let read = bytes.withUnsafeMutableBytes { buffer in
                #if canImport(Glibc)
                Glibc.read(descriptor, buffer.baseAddress! + filled, count - filled)
                #elseif canImport(Musl)
                Musl.read(descriptor, buffer.baseAddress! + filled, count - filled)
                #else
                Darwin.read(descriptor, buffer.baseAddress! + filled, count - filled)
                #endif
            }
            if read < 0 && errno == EINTR { continue }
            guard read >= 0 else { return nil }
            if read == 0 { break }
            filled += read
        }
        bytes.removeLast(count - filled)
        return bytes
    }

    /// The file's size in bytes; nil when it cannot be examined.
    package var size: Int? {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return nil }
        return Int(status.st_size)
    }
}
