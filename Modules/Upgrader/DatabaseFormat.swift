/// What a database path holds, as far as opening or upgrading it is concerned.
///
/// Found by ``detect(at:)``, which only reads files. `Database` uses it on open to decide
/// between opening, upgrading (``legacySQLite(schemaVersion:)``) and refusing
/// (``refusal(path:)``).
package enum DatabaseFormat: Sendable, Hashable {
    /// Nothing there yet: no database file in the bundle (a new database may be created).
    case absent
    /// A Couchbase Lite 1.2+ SQLite database (`PRAGMA user_version` 100–149): upgradable.
    case legacySQLite(schemaVersion: Int)
    /// A Couchbase Lite 1.x ForestDB bundle (`db.forest.*`): refused.
    case legacyForestDB
    /// A pre-1.2 single-file database (`<name>.cblite`): refused; `nil` when its schema version
    /// could not be read.
    case legacySingleFile(schemaVersion: Int?)
    /// A file whose first page is not a readable SQLite header but looks encrypted (SQLCipher).
    case encrypted
    /// A SQLite file whose schema version is neither 1.x (100–149) nor 2.x (201 and above).
    case unsupportedSchema(version: Int)
    /// A Couchbase Lite 2.x SQLite database (`PRAGMA user_version` 201 and above).
    case currentSQLite(schemaVersion: Int)
    /// A 2.x bundle in this project's RocksDB layout (`db.rocksdb/`).
    case currentRocksDB
    /// A 2.x SQLite database this project encrypted (its own header magic; docs/security.md):
    /// the engine checks the key and reads the schema version when it opens it.
    case currentEncryptedSQLite
    /// Not a database, truncated, or with a damaged header; `reason` says which.
    case unreadable(reason: String)

    /// The 1.x schema versions the upgrader accepts (LiteCore's `kMinOldUserVersion` and
    /// `kMaxOldUserVersion`).
    package static let legacySchemaVersions = 100...149
    /// The lowest 2.x SQLite schema version.
    package static let firstCurrentSchemaVersion = 201

    /// True for a 1.x database this module can read and upgrade.
    package var isUpgradable: Bool {
        if case .legacySQLite = self { return true }
        return false
    }

    /// The error for opening an upgradable 1.x database when the caller declined upgrades (a
    /// "no upgrade" open option, LiteCore's `kC4DB_NoUpgrade`): `databaseTooOld`, as LiteCore
    /// reports it. `nil` for every other format.
    package func upgradeDeclined(path: String) -> UpgraderError? {
        guard case .legacySQLite(let version) = self else { return nil }
        return UpgraderError(.databaseTooOld,
            "database at \(path) is a Couchbase Lite 1.x database (schema version \(version)) and "
            + "must be upgraded to 2.x before it can be opened: open it without the option that "
            + "prevents upgrades", path: path, schemaVersion: version)
    }

    /// The error to report when asked to read this as a 1.x database, or `nil` when it can be.
    ///
    /// - Parameter path: the bundle or file the format was detected at, named in the message.
    package func refusal(path: String) -> UpgraderError? {
        switch self {
        case .legacySQLite:
            return nil
        case .absent:
            return UpgraderError(.notADatabase,
                "no Couchbase Lite database at \(path): expected a .cblite2 bundle holding db.sqlite3",
                path: path)
        case .legacyForestDB:
            return UpgraderError(.forestDB,
                "database at \(path) is a Couchbase Lite 1.x ForestDB database (db.forest.*), which "
                + "cannot be upgraded: only 1.x SQLite databases can. In the 1.x app, copy it into a "
                + "new database with SQLite storage first (1.x has no converter: replicate into it, "
                + "or add each document with its existing revision history), then open that one here",
                path: path)
        case .legacySingleFile(let version):
            let found = version.map { " (schema version \($0))" } ?? ""
            return UpgraderError(.databaseTooOld,
                "database at \(path) is a pre-1.2 single-file Couchbase Lite database\(found), which "
                + "cannot be upgraded: open it once with Couchbase Lite 1.2–1.4 to move it to the "
                + ".cblite2 format, then open it here", path: path, schemaVersion: version)
        case .encrypted:
            return UpgraderError(.encrypted,
                "database at \(path) may be encrypted with a key or codec this build cannot read, or is "
                + "not a SQLite file (its header is unreadable). A Couchbase Lite Enterprise Edition "
                + "database (encrypted with SQLite's SEE codec) cannot be opened here: replicate or export "
                + "its documents with Couchbase Lite instead. An encrypted Couchbase Lite 1.x database: "
                + "decrypt it with the 1.x app first (change its encryption key to nil), then open it here",
                path: path)
        case .unsupportedSchema(let version) where version < Self.legacySchemaVersions.lowerBound:
            return UpgraderError(.databaseTooOld,
                "database at \(path) has schema version \(version), older than Couchbase Lite 1.2 "
                + "(100–149 can be upgraded): open it with Couchbase Lite 1.2–1.4 first",
                path: path, schemaVersion: version)
        case .unsupportedSchema(let version):
            return UpgraderError(.unsupportedSchemaVersion,
                "database at \(path) has schema version \(version), which is not a known Couchbase "
                + "Lite 1.x version (100–149) nor 2.x (201 and above): it cannot be upgraded",
                path: path, schemaVersion: version)
        case .currentSQLite(let version):
            return UpgraderError(.alreadyUpgraded,
                "database at \(path) is already a Couchbase Lite 2.x database (schema version "
                + "\(version)): open it directly", path: path, schemaVersion: version)
        case .currentEncryptedSQLite:
            return UpgraderError(.alreadyUpgraded,
                "database at \(path) is already an encrypted 2.x database: open it directly, with its "
                + "encryption key", path: path)
        case .currentRocksDB:
            return UpgraderError(.alreadyUpgraded,
                "database at \(path) is already a 2.x database (RocksDB storage): open it directly",
                path: path)
        case .unreadable(let reason):
            return UpgraderError(.notADatabase,
                "database at \(path) cannot be read: \(reason); if it was copied, copy it again "
                + "completely, or restore it from a backup", path: path)
        }
    }
}
