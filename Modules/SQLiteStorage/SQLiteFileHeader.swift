import FoundationEssentials
import LiteStorage
import LiteSupport

/// The 100-byte header every SQLite database file starts with, read without SQLite so that a
/// file that is not ours is judged without opening it (and so without touching it).
/// Layout: https://www.sqlite.org/fileformat.html §1.3.
struct SQLiteFileHeader {
    static let magic = Array("SQLite format 3\0".utf8)

    let pageSize: Int
    let pageCount: Int?
    let userVersion: Int64
    let fileSize: Int

    /// Reads and checks the header of the file at `path`.
    ///
    /// - Throws: `notADatabase` for a file that is not SQLite; `corrupt` for a truncated or
    ///   damaged one.
    init(path: String) throws {
        guard let file = ReadOnlyFile(path: path), let bytes = file.read(upToCount: 100) else {
            throw StorageError(.ioError, "cannot read \"\(path)\": check it exists and its permissions")
        }
        let size = file.size ?? 0
        fileSize = size
        if size == 0 {
            throw StorageError(.notADatabaseFile, "\"\(path)\" is an empty file, not a SQLite database")
        }
        guard bytes.count >= 16, Array(bytes[0..<16]) == Self.magic else {
            throw StorageError(.notADatabaseFile, "\"\(path)\" is not a SQLite database (its first bytes are "
                               + "not \"SQLite format 3\")")
        }
        guard bytes.count == 100 else {
            throw StorageError(.corruptData, "SQLite database \"\(path)\" is truncated: \(size) bytes, "
                               + "shorter than its 100-byte header")
        }
        func u32(_ offset: Int) -> UInt32 {
            bytes[offset..<offset + 4].reduce(0) { $0 << 8 | UInt32($1) }
        }
        let rawPageSize = Int(bytes[16]) << 8 | Int(bytes[17])
        let pageSize = rawPageSize == 1 ? 65536 : rawPageSize
        guard pageSize >= 512, pageSize <= 65536, pageSize & (pageSize - 1) == 0 else {
            throw StorageError(.corruptData, "SQLite database \"\(path)\" is damaged: its header gives page "
                               + "size \(rawPageSize)")
        }
        self.pageSize = pageSize
        // The in-header page count is valid only when the change counter matches offset 92.
        pageCount = u32(24) == u32(92) ? Int(u32(28)) : nil
        userVersion = Int64(Int32(bitPattern: u32(60)))
        if size % pageSize != 0 || (pageCount.map { size < $0 * pageSize } ?? false) {
            let promised = pageCount.map { "\($0) pages of \(pageSize) bytes" } ?? "whole \(pageSize)-byte pages"
            throw StorageError(.corruptData, "SQLite database \"\(path)\" is truncated: it has \(size) bytes but its "
                               + "header promises \(promised); restore it from a backup")
        }
    }
}
