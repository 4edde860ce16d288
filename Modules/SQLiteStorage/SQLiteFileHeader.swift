import FoundationEssentials
import LiteStorage
import LiteSupport

/// The 100-byte header every SQLite database file starts with, read without SQLite so that a
/// file that is not ours is judged without opening it (and so without touching it): the engine
/// checks its files with it, the upgrader detects 1.x databases with it.
/// Layout: https://www.sqlite.org/fileformat.html §1.3; all integers big-endian.
package struct SQLiteFileHeader: Sendable, Equatable {
    /// Every SQLite 3 database starts with these 16 bytes.
    package static let magic = Array("SQLite format 3\0".utf8)
    /// The header's size in bytes.
    package static let length = 100

    /// The page size in bytes (the stored value 1 means 65,536).
    package let pageSize: Int
    /// The database size in pages, or `nil` when the header says that field is stale.
    package let pageCount: Int?
    /// `PRAGMA user_version`: Couchbase Lite keeps its schema version here.
    package let userVersion: Int64
    /// True when the file was last written in WAL journal mode.
    package let isWALMode: Bool

    /// Parses a header; `nil` when `bytes` does not start with a SQLite 3 header with a valid
    /// page size.
    package init?(_ bytes: some Collection<UInt8>) {
        let bytes = Array(bytes.prefix(Self.length))
        guard bytes.count == Self.length, bytes.starts(with: Self.magic) else { return nil }
        func u32(_ offset: Int) -> UInt32 {
            bytes[offset..<offset + 4].reduce(0) { $0 << 8 | UInt32($1) }
        }
        let rawPageSize = Int(bytes[16]) << 8 | Int(bytes[17])
        let pageSize = rawPageSize == 1 ? 65_536 : rawPageSize
        // A valid page size is a power of two in 512...65536.
        guard pageSize >= 512, pageSize <= 65_536, pageSize & (pageSize - 1) == 0 else { return nil }
        self.pageSize = pageSize
        // The in-header size is only trustworthy when "version-valid-for" matches the change
        // counter (SQLite ≥ 3.7.0 keeps them equal; older writers leave the size stale).
        pageCount = u32(24) == u32(92) && u32(28) != 0 ? Int(u32(28)) : nil
        userVersion = Int64(Int32(bitPattern: u32(60)))
        isWALMode = bytes[18] == 2 || bytes[19] == 2
    }

    /// Reads and checks the header of the file at `path`, and that the file is as long as the
    /// header says.
    ///
    /// - Throws: `notADatabaseFile` for a file that is not SQLite; `corruptData` for a truncated
    ///   or damaged one.
    init(path: String) throws {
        // Through SQLite's VFS: this process may have the file open already (Storage-38).
        guard let start = SQLiteFileStart(path: path, count: Self.length) else {
            throw StorageError(.ioError, "cannot read \"\(path)\": check it exists and its permissions")
        }
        let (bytes, size) = (start.bytes, start.size)
        if size == 0 {
            throw StorageError(.notADatabaseFile, "\"\(path)\" is an empty file, not a SQLite database")
        }
        guard bytes.count >= Self.magic.count, bytes.starts(with: Self.magic) else {
            throw StorageError(.notADatabaseFile, "\"\(path)\" is not a SQLite database (its first bytes are "
                               + "not \"SQLite format 3\")")
        }
        guard bytes.count == Self.length else {
            throw StorageError(.corruptData, "SQLite database \"\(path)\" is truncated: \(size) bytes, "
                               + "shorter than its 100-byte header")
        }
        guard let header = SQLiteFileHeader(bytes) else {
            throw StorageError(.corruptData, "SQLite database \"\(path)\" is damaged: its header gives page "
                               + "size \(Int(bytes[16]) << 8 | Int(bytes[17]))")
        }
        if size % header.pageSize != 0 || (header.pageCount.map { size < $0 * header.pageSize } ?? false) {
            let promised = header.pageCount.map { "\($0) pages of \(header.pageSize) bytes" }
                ?? "whole \(header.pageSize)-byte pages"
            throw StorageError(.corruptData, "SQLite database \"\(path)\" is truncated: it has \(size) bytes but its "
                               + "header promises \(promised); restore it from a backup")
        }
        self = header
    }
}
