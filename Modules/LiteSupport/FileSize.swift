#if canImport(Glibc)
import Glibc
#endif

/// A file's size from one `stat(2)`. `FileManager.attributesOfItem` builds a dictionary of every
/// attribute, including the owner's and group's names, which costs two NSS lookups
/// (`/etc/passwd`, `/etc/group`) per call — noticeable in a tool's start-up.
///
/// ```swift
/// let bytes = fileSize(atPath: "/tmp/db.sqlite3-wal") ?? 0
/// ```
package func fileSize(atPath path: String) -> Int64? {
    var status = stat()
    guard stat(path, &status) == 0 else { return nil }
    return Int64(status.st_size)
}
