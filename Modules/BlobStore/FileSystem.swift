import FoundationEssentials

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// File-system calls on paths, for the store's directory operations (and, flushing, for the
/// bundle operations that replace files: a key change).
package enum FileSystem {
    /// Removes a file; returns false when it did not exist.
    @discardableResult
    static func removeFile(_ path: String) throws(POSIXFailure) -> Bool {
        if unlink(path) == 0 { return true }
        if errno == ENOENT { return false }
        throw POSIXFailure(operation: "unlink", path: path)
    }

    /// Renames `source` to `destination`, atomically replacing any file there.
    package static func rename(_ source: String, to destination: String) throws(POSIXFailure) {
        guard systemRename(source, destination) == 0 else {
            throw POSIXFailure(operation: "rename to \"\(destination)\"", path: source)
        }
    }

    /// Makes `destination` a second name (hard link) for the file `source`.
    static func link(_ source: String, to destination: String) throws(POSIXFailure) {
        guard systemLink(source, destination) == 0 else {
            throw POSIXFailure(operation: "link to \"\(destination)\"", path: source)
        }
    }

    /// The size of the file at `path`, or nil when there is none.
    static func size(_ path: String) throws(POSIXFailure) -> Int64? {
        var status = stat()
        if stat(path, &status) == 0 { return Int64(status.st_size) }
        if errno == ENOENT { return nil }
        throw POSIXFailure(operation: "stat", path: path)
    }

    /// The last modification time of the file at `path`, or nil when there is none.
    static func modificationDate(_ path: String) throws(POSIXFailure) -> Date? {
        var status = stat()
        guard stat(path, &status) == 0 else {
            if errno == ENOENT { return nil }
            throw POSIXFailure(operation: "stat", path: path)
        }
        #if canImport(Darwin)
        let time = status.st_mtimespec
        #else
        let time = status.st_mtim
        #endif
        return Date(timeIntervalSince1970: Double(time.tv_sec) + Double(time.tv_nsec) / 1e9)
    }

    /// Sets the file's modification time to now.
    static func touch(_ path: String) throws(POSIXFailure) {
        guard utimes(path, nil) == 0 else { throw POSIXFailure(operation: "utimes", path: path) }
    }

    /// Flushes a directory's entries (a rename or unlink in it) to stable storage.
    package static func synchronizeDirectory(_ path: String) throws(POSIXFailure) {
        let directory = systemOpen(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0)
        guard directory >= 0 else { throw POSIXFailure(operation: "open directory", path: path) }
        defer { _ = systemClose(directory) }
        guard fsync(directory) == 0 else { throw POSIXFailure(operation: "fsync directory", path: path) }
    }

    /// Flushes a file's content to stable storage.
    package static func synchronizeFile(_ path: String) throws(POSIXFailure) {
        let file = systemOpen(path, O_RDONLY | O_CLOEXEC, 0)
        guard file >= 0 else { throw POSIXFailure(operation: "open", path: path) }
        defer { _ = systemClose(file) }
        guard fsync(file) == 0 else { throw POSIXFailure(operation: "fsync", path: path) }
    }
}
