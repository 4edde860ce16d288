#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes to standard output and standard error with `write(2)`, as Foundation's
/// `FileHandle.standardError.write` did, for code the tools link without Foundation (Tools-18).
///
/// ```swift
/// StandardStreams.writeError("cblite: cannot open db.cblite2\n")
/// ```
package enum StandardStreams {
    /// Writes `text` whole to standard error.
    package static func writeError(_ text: String) {
        write(Array(text.utf8), to: 2)
    }

    /// Writes `bytes` whole to standard output (unbuffered: flush `print`'s buffer first when
    /// mixing the two).
    package static func writeOutput(_ bytes: some Collection<UInt8>) {
        write(Array(bytes), to: 1)
    }

    /// Everything standard input gives until its end (what is read before a failure).
    package static func readInput() -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { buffer in
                #if canImport(Glibc)
                Glibc.read(0, buffer.baseAddress!, buffer.count)
                #elseif canImport(Musl)
                Musl.read(0, buffer.baseAddress!, buffer.count)
                #else
                Darwin.read(0, buffer.baseAddress!, buffer.count)
                #endif
            }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return bytes }
            bytes += chunk[..<count]
        }
    }

    /// Writes all of `bytes`, continuing after short writes and interruptions; stops silently
    /// when the stream is closed (as a write to a closed pipe has nobody to report to).
    private static func write(_ bytes: [UInt8], to descriptor: Int32) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { buffer in
                #if canImport(Glibc)
                Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                #elseif canImport(Musl)
                Musl.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                #else
                Darwin.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                #endif
            }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return }
            offset += written
        }
    }
}
