#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads the first bytes of a file, and its size, with plain POSIX calls: what the format
/// sniffers need, without Foundation's `FileHandle` (which the tools do not link: Tools-18).
///
/// ```swift
/// let header = FileBytes.prefix(ofFileAt: path, count: 16)   // nil: cannot be opened
/// ```
package enum FileBytes {
    /// Up to `count` bytes from `offset`; fewer at the end of the file, nil when the file cannot
    /// be opened or read (a folder, no permission, missing).
    package static func prefix(ofFileAt path: String, count: Int, offset: Int = 0) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let read = bytes.withUnsafeMutableBytes {
                pread(descriptor, $0.baseAddress! + filled, count - filled, off_t(offset + filled))
            }
            if read < 0 && errno == EINTR { continue }
            guard read >= 0 else { return nil }
            if read == 0 { break }
            filled += read
        }
        return Array(bytes[..<filled])
    }

    /// The file's size in bytes, nil when it cannot be examined.
    package static func size(ofFileAt path: String) -> Int? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return Int(status.st_size)
    }
}
