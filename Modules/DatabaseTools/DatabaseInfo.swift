import BlobStore
import DatabaseConversion
import FoundationEssentials
import LiteDatabase
import LiteStorage
import LiteSupport
import SQLiteStorage

/// What `cblite info` reports about a database; `Codable` for `--json`.
package struct DatabaseInfo: Codable, Sendable, Hashable {
    /// The bundle folder.
    package var path: String
    /// The storage engine's name (`SQLite`, `RocksDB`).
    package var engine: String
    /// The data file's format version: SQLite's schema (`user_version`), or RocksDB's layout.
    package var formatVersion: String
    /// Live documents.
    package var documentCount: Int
    /// Deleted documents (tombstones).
    package var deletedCount: Int
    /// The documents store's last sequence.
    package var lastSequence: UInt64
    /// Documents purged, ever.
    package var purgeCount: UInt64
    /// The public UUID, in hex.
    package var publicUUID: String
    /// The private UUID, in hex.
    package var privateUUID: String
    /// Blob files in `Attachments/`.
    package var blobCount: Int
    /// Their total size in bytes.
    package var blobBytes: Int64
    /// The key stores in the data file.
    package var keyStores: [String]
    /// Every index: ours, adopted and LiteCore's, with kind and definition.
    package var indexes: [IndexSummary]
    /// The data file's size in bytes (all of its files, for a folder or a WAL).
    package var dataFileBytes: Int64

    /// Gathers the information of an open database.
    package static func gather(_ core: DatabaseCore) throws -> DatabaseInfo {
        try DatabaseToolsError.wrapping(.ioFailure, "cannot read the information of \(core.bundle.path)") {
            let documents = core.documents
            let blobs = core.blobStore
            var blobBytes: Int64 = 0
            let keys = try blobs.allKeys()
            for key in keys { blobBytes += try blobs.size(of: key) }
            let dataPath = core.engine.dataFilePath(inBundle: core.bundle.path)
            let live = try documents.recordCount(includeDeleted: false)
            return DatabaseInfo(
                path: core.bundle.path, engine: core.engine.name, formatVersion: formatVersion(core.engine, dataPath),
                documentCount: live, deletedCount: try documents.recordCount(includeDeleted: true) - live,
                lastSequence: try documents.lastSequence(), purgeCount: try documents.purgeCount(),
                publicUUID: hex(try core.publicUUID()), privateUUID: hex(try core.privateUUID()),
                blobCount: keys.count, blobBytes: blobBytes, keyStores: try core.dataFile.keyStoreNames(),
                indexes: try IndexSummary.all(in: core), dataFileBytes: size(ofDataFile: dataPath))
        }
    }

    /// Lowercase hex of `bytes`.
    package static func hex(_ bytes: [UInt8]) -> String {
        HexText.string(bytes)
    }

    /// SQLite keeps the schema version at byte 60 of the header (big-endian `user_version`).
    private static func formatVersion(_ engine: any StorageEngine, _ path: String) -> String {
        guard engine.fileName.hasSuffix(".sqlite3") else { return "RocksDB layout 1" }
        // Through SQLite's VFS: the tool has the file open through SQLite (Storage-38).
        guard let header = SQLiteFileStart(path: path, count: 64)?.bytes, header.count == 64 else { return "unknown" }
        let version = header[60..<64].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        return "SQLite schema \(version)"
    }

    /// The size of a file, or of a folder's files, plus SQLite's `-wal`/`-shm` side files.
    private static func size(ofDataFile path: String) -> Int64 {
        let fileManager = FileManager.default
        var total: Int64 = 0
        var isDirectory = false
        if fileManager.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory {
            for name in (try? fileManager.contentsOfDirectory(atPath: path)) ?? [] {  // allowed: a size report
                total += fileSize(atPath: path.pathAppending(name)) ?? 0
            }
            return total
        }
        for suffix in ["", "-wal", "-shm"] {
            total += fileSize(atPath: path + suffix) ?? 0  // absent side files count 0
        }
        return total
    }

    /// The report as aligned `name: value` lines.
    package var text: String {
        let rows: [(String, String)] = [
            ("Path", path), ("Engine", engine), ("Format", formatVersion),
            ("Documents", "\(documentCount) live, \(deletedCount) deleted"),
            ("Last sequence", "\(lastSequence)"), ("Purged", "\(purgeCount)"),
            ("Public UUID", publicUUID.isEmpty ? "none" : publicUUID),
            ("Private UUID", privateUUID.isEmpty ? "none" : privateUUID),
            ("Blobs", "\(blobCount) (\(blobBytes) bytes)"), ("Key stores", keyStores.joined(separator: ", ")),
            ("Indexes", indexes.isEmpty ? "none" : indexes.map(\.text).joined(separator: "\n" + String(repeating: " ", count: 14))),
            ("Data file", "\(dataFileBytes) bytes"),
        ]
        return rows.map { $0.0 + String(repeating: " ", count: max(0, 14 - $0.0.count)) + $0.1 }.joined(separator: "\n")
    }
}
