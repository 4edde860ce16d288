/// Where a database keeps its records: the engine is chosen per database, in
/// ``DatabaseConfiguration/storageEngine``.
public enum StorageEngine: String, Sendable, CaseIterable, CustomStringConvertible {
    /// SQLite, in the Couchbase Lite 2.x file format (`db.sqlite3`): real Couchbase Lite opens it.
    case sqlite
    /// RocksDB (`db.rocksdb/`): faster bulk writes; only this library opens it.
    case rocksdb

    /// The engine's name as the storage layer registers it.
    var engineName: String {
        switch self {
        case .sqlite: "SQLite"
        case .rocksdb: "RocksDB"
        }
    }

    /// The engine's name as written in configuration: `sqlite` or `rocksdb`.
    public var description: String { rawValue }
}
