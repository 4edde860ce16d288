import CSQLite
import FoundationEssentials
import Glibc
import LiteStorage
import LiteSupport

extension SQLiteEngine {
    /// The suffix of the re-encrypted copy built beside the file.
    package static let rekeySuffix = ".rekey"

    /// Re-encrypts the closed database at `path` from `oldKey` to `newKey` (nil on either side:
    /// plaintext), crash-safely: a complete copy is written beside the file (`VACUUM INTO`),
    /// flushed to disk, then renamed over the file in one step, so a process killed at any
    /// point leaves a file the old key opens (before the rename) or the new one (after), with
    /// every committed record. A copy left by a killed run is removed by the next one.
    ///
    /// The file must not be open anywhere while this runs.
    ///
    /// - Throws: `notADatabaseFile` when `oldKey` is not the file's key; `ioError` when the copy
    ///   cannot be written or renamed (the file is then as it was).
    package func changeEncryptionKey(at path: String, from oldKey: AES256Key?, to newKey: AES256Key?) throws {
        let copy = path + Self.rekeySuffix
        try delete(at: copy)
        // Checks the old key (without writing) and leaves the file's WAL empty, so that no frame
        // of the old file is left beside the new one.
        let file = try openFile(at: path, options: DataFileOptions(encryptionKey: oldKey))
        try file.compact()
        try file.close()
        let source = oldKey.map(SQLiteEncryption.init(key:))
        let connection = try SQLiteConnection(path: path, flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_URI | SQLITE_OPEN_EXRESCODE,
                                              encryption: source)
        do {
            var target = "file:" + copy.percentEncodingPath()
            if let newKey {
                // The VFS is registered on first use, and a plaintext source did not use it.
                guard SQLiteEncryptingVFS.isRegistered else {
                    throw StorageError(.unsupportedEncryption, "SQLite database \"\(path)\": cannot register the "
                                       + "encrypting VFS, so the database cannot be encrypted")
                }
                // VACUUM INTO gives the copy the reserved bytes the source asks for: room for
                // the nonce and tag (SQLite records the request even though the source's own
                // pages are fixed, and reports that as SQLITE_READONLY).
                _ = try? connection.reserveBytesPerPage(Int32(SQLitePageCipher.reserveSize))  // allowed: see above
                target += "?vfs=" + SQLiteEncryptingVFS.name + "&" + SQLiteEncryption(key: newKey).uriParameter
            } else {
                target += "?vfs=unix"
            }
            try connection.execute("VACUUM INTO '\(target.replacing("'", with: "''"))'")
            connection.close()
        } catch {
            connection.close()
            try? delete(at: copy)  // allowed: removing the partial copy; the failure is what is reported
            throw error
        }
        try Self.synchronize(file: copy)
        guard rename(copy, path) == 0 else {
            let reason = String(cString: strerror(errno))
            try? delete(at: copy)  // allowed: the original is untouched; the rename failure is reported
            throw StorageError(.ioError, "cannot replace \"\(path)\" with its re-encrypted copy: \(reason)")
        }
        // The commit point is behind us; the old file's empty WAL and its index go.
        for suffix in ["-wal", "-shm"] where FileManager.default.fileExists(atPath: path + suffix) {
            try? FileManager.default.removeItem(atPath: path + suffix)  // allowed: an empty WAL and a stale index are harmless; SQLite rebuilds them
        }
        let folder = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
        try Self.synchronize(directory: folder.isEmpty ? "/" : folder)
    }

    private static func synchronize(file path: String) throws {
        let descriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw StorageError(.ioError, "cannot open \"\(path)\" to flush it: \(String(cString: strerror(errno)))")
        }
        defer { _ = Glibc.close(descriptor) }
        guard fsync(descriptor) == 0 else {
            throw StorageError(.ioError, "cannot flush \"\(path)\" to disk: \(String(cString: strerror(errno)))")
        }
    }

    private static func synchronize(directory path: String) throws {
        let descriptor = Glibc.open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw StorageError(.ioError, "cannot open folder \"\(path)\" to flush it: \(String(cString: strerror(errno)))")
        }
        defer { _ = Glibc.close(descriptor) }
        guard fsync(descriptor) == 0 else {
            throw StorageError(.ioError, "cannot flush folder \"\(path)\": \(String(cString: strerror(errno)))")
        }
    }
}
