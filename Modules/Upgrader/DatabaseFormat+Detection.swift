import FoundationEssentials
import Glibc
import LiteStorage
import LiteSupport
import SQLiteStorage

extension DatabaseFormat {
    /// The SQLite database file inside a `.cblite2` bundle (1.2+ and 2.x alike).
    package static let sqliteFileName = "db.sqlite3"

    /// Finds out what `path` holds, reading files only: nothing is created or modified (no
    /// `-shm` or `-wal` appears, no file is locked).
    ///
    /// `path` may be a `.cblite2` bundle, a `db.sqlite3` file, or a pre-1.2 `.cblite` file (or
    /// the folder holding one). The schema version is read from the file's header, or from the
    /// newest committed page 1 in its `-wal` file when that is newer.
    ///
    /// ```swift
    /// switch DatabaseFormat.detect(at: bundle.path) {
    /// case .legacySQLite: try upgrade(bundle)
    /// case .currentSQLite, .absent: try open(bundle)
    /// case let other: if let error = other.refusal(path: bundle.path) { throw error }
    /// }
    /// ```
    package static func detect(at path: String) -> DatabaseFormat {
        let fileManager = FileManager.default
        var isDirectory = false
        guard fileManager.fileExists(atPath: path, isDirectory: &isDirectory) else { return .absent }
        guard isDirectory else {
            return path.hasSuffix(".cblite") ? detectSingleFile(at: path) : detectSQLiteFile(at: path)
        }
        let names: [String]
        do {
            names = try fileManager.contentsOfDirectory(atPath: path)
        } catch {
            return .unreadable(reason: "its folder cannot be listed (\(fileErrorDescription(error)))")
        }
        let folder = URL(fileURLWithPath: path, isDirectory: true)
        if names.contains(sqliteFileName) {
            return detectSQLiteFile(at: folder.appendingPathComponent(sqliteFileName).path)
        }
        if names.contains("db.rocksdb") { return .currentRocksDB }
        if names.contains(where: { $0.hasPrefix("db.forest.") }) { return .legacyForestDB }
        if let single = names.sorted().first(where: { $0.hasSuffix(".cblite") }) {
            return detectSingleFile(at: folder.appendingPathComponent(single).path)
        }
        return .absent
    }

    private static func detectSingleFile(at path: String) -> DatabaseFormat {
        if case .header(let header) = readHeader(at: path) {
            return .legacySingleFile(schemaVersion: Int(header.userVersion))
        }
        return .legacySingleFile(schemaVersion: nil)
    }

    private static func detectSQLiteFile(at path: String) -> DatabaseFormat {
        // Its header is encrypted: only the engine, given the key, can read the schema version.
        if SQLiteEncryption.kind(ofFileAt: path) == .encrypted { return .currentEncryptedSQLite }
        let header: SQLiteFileHeader
        switch readHeader(at: path) {
        case .header(let found):
            header = found
        case .failed(let format):
            return format
        }
        let version = Int(header.userVersion)
        if legacySchemaVersions.contains(version) { return .legacySQLite(schemaVersion: version) }
        if version >= firstCurrentSchemaVersion { return .currentSQLite(schemaVersion: version) }
        return .unsupportedSchema(version: version)
    }

    /// Reads page 1's header, preferring a newer committed copy in the `-wal` file, and checks
    /// the main file is not shorter than its header says.
    private static func readHeader(at path: String) -> HeaderReading {
        if let page = SQLiteWriteAheadLog.latestCommittedPage(1, walPath: path + "-wal"),
           let header = SQLiteFileHeader(page) {
            return .header(header)
        }
        // Through SQLite's VFS, not a descriptor of our own: this process may have the file open
        // through SQLite, and closing a descriptor would drop SQLite's locks (Storage-38).
        guard let read = SQLiteFileStart(path: path, count: 4096) else {
            return .failed(.unreadable(reason: access(path, R_OK) == 0 ? "the file cannot be read"
                                                                        : "the file cannot be opened for reading"))
        }
        let (start, fileSize) = (read.bytes, UInt64(read.size))
        guard let header = SQLiteFileHeader(start) else {
            if start.isEmpty { return .failed(.unreadable(reason: "the file is empty")) }
            if looksEncrypted(start, fileSize: fileSize) { return .failed(.encrypted) }
            if start.count < SQLiteFileHeader.length, start.starts(with: SQLiteFileHeader.magic.prefix(start.count)) {
                return .failed(.unreadable(reason: "the file is truncated (\(fileSize) bytes)"))
            }
            return .failed(.unreadable(reason: "the file is not a SQLite database"))
        }
        if let pages = header.pageCount, fileSize < UInt64(pages) * UInt64(header.pageSize) {
            return .failed(.unreadable(reason:
                "the file is truncated: \(fileSize) bytes where its header says \(pages) pages of "
                + "\(header.pageSize) bytes"))
        }
        return .header(header)
    }

    /// SQLCipher encrypts the whole file, header included, so it reads as uniformly random
    /// bytes in whole pages; text, zeros or other formats have far fewer distinct byte values.
    private static func looksEncrypted(_ start: [UInt8], fileSize: UInt64) -> Bool {
        guard start.count >= 1024, fileSize % 512 == 0 else { return false }
        return Set(start.prefix(1024)).count >= 200
    }

    /// The outcome of reading page 1: a header, or the format that explains why there is none.
    private enum HeaderReading {
        case header(SQLiteFileHeader)
        case failed(DatabaseFormat)
    }
}
