import LiteStorage

extension RocksDBDataFile {
    /// Only carried definitions: a RocksDB file has none of LiteCore's own.
    package func foreignIndexes() throws -> [ForeignIndex] {
        try carriedForeignIndexes().sorted { $0.name < $1.name }
    }
}
