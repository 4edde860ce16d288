import FoundationEssentials

/// The fields of a SQLite database header (the first 100 bytes of page 1) that detection needs.
///
/// Layout from the SQLite file-format document (§1.3): all integers big-endian.
struct SQLiteFileHeader: Sendable, Equatable {
    /// Every SQLite 3 database starts with these 16 bytes.
    static let magic: [UInt8] = Array("SQLite format 3\0".utf8)
    /// The header's size in bytes.
    static let length = 100

    /// The page size in bytes (the stored value 1 means 65,536).
    let pageSize: Int
    /// `PRAGMA user_version`: Couchbase Lite keeps its schema version here.
    let userVersion: Int
    /// The database size in pages, or `nil` when the header says that field is stale.
    let databaseSizeInPages: Int?
    /// True when the file was last written in WAL journal mode.
    let isWALMode: Bool

    /// Parses a header; `nil` when `bytes` does not start with a SQLite 3 header.
    init?(_ bytes: some Collection<UInt8>) {
        let bytes = Array(bytes.prefix(Self.length))
        guard bytes.count == Self.length, bytes.starts(with: Self.magic) else { return nil }
        func uint32(at offset: Int) -> UInt32 {
            bytes[offset..<offset + 4].reduce(0) { $0 << 8 | UInt32($1) }
        }
        let rawPageSize = Int(bytes[16]) << 8 | Int(bytes[17])
        let pageSize = rawPageSize == 1 ? 65_536 : rawPageSize
        // A valid page size is a power of two in 512...65536.
        guard pageSize >= 512, pageSize <= 65_536, pageSize & (pageSize - 1) == 0 else { return nil }
        self.pageSize = pageSize
        userVersion = Int(Int32(bitPattern: uint32(at: 60)))
        // The in-header size is only trustworthy when "version-valid-for" matches the change
        // counter (SQLite ≥ 3.7.0 keeps them equal; older writers leave the size stale).
        let sizeIsValid = uint32(at: 24) == uint32(at: 92) && uint32(at: 28) != 0
        databaseSizeInPages = sizeIsValid ? Int(uint32(at: 28)) : nil
        isWALMode = bytes[18] == 2 || bytes[19] == 2
    }
}
