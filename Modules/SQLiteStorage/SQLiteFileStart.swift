import CSQLite

/// The first bytes of a database file and its size, read through SQLite's default VFS rather
/// than a descriptor of our own (Storage-38).
///
/// Closing any descriptor of a file drops every POSIX lock this process holds on it, SQLite's
/// included, and SQLite does not notice. Without the shared lock its connections keep on a
/// database file, another process that closes its last connection believes it is the only
/// user: it checkpoints and deletes the WAL while this process still reads and writes it. So a
/// file this process may already have open through SQLite (a second `Database` on the same
/// path checks the file's header first) is read through SQLite's own VFS, whose close keeps the
/// descriptor until the file's locks are released.
///
/// ```swift
/// guard let start = SQLiteFileStart(path: path, count: 100) else { throw … }
/// ```
package struct SQLiteFileStart {
    /// Up to the requested count of bytes from the start of the file (fewer when it is shorter).
    package let bytes: [UInt8]
    /// The file's size in bytes.
    package let size: Int

    /// Reads up to `count` bytes from the start of the file at `path`; nil when it cannot be
    /// opened or read.
    package init?(path: String, count: Int) {
        guard let vfs = sqlite3_vfs_find(nil), let open = vfs.pointee.xOpen,
              let name = sqlite3_create_filename(path, "", "", 0, nil) else { return nil }
        defer { sqlite3_free_filename(name) }
        let size = Int(vfs.pointee.szOsFile)
        let storage = UnsafeMutableRawPointer.allocate(byteCount: max(size, MemoryLayout<sqlite3_file>.size), alignment: 16)
        defer { storage.deallocate() }
        storage.initializeMemory(as: UInt8.self, repeating: 0, count: max(size, MemoryLayout<sqlite3_file>.size))
        let file = storage.assumingMemoryBound(to: sqlite3_file.self)
        var outFlags: Int32 = 0
        let opened = open(vfs, name, file, SQLITE_OPEN_READONLY | SQLITE_OPEN_MAIN_DB, &outFlags)
        // A VFS that set its methods must be closed even when the open failed.
        guard let methods = file.pointee.pMethods else { return nil }
        defer { _ = methods.pointee.xClose?(file) }
        guard opened == SQLITE_OK, let fileSize = methods.pointee.xFileSize, let read = methods.pointee.xRead else { return nil }
        var total: sqlite3_int64 = 0
        guard fileSize(file, &total) == SQLITE_OK, total >= 0 else { return nil }
        var bytes = [UInt8](repeating: 0, count: min(count, Int(total)))
        if !bytes.isEmpty {
            let result = bytes.withUnsafeMutableBytes { read(file, $0.baseAddress, Int32($0.count), 0) }
            guard result == SQLITE_OK else { return nil }
        }
        self.bytes = bytes
        self.size = Int(total)
    }
}
