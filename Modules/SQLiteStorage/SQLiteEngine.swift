import CSQLite
import FoundationEssentials
import LiteStorage
import LiteSupport

/// The SQLite storage engine: Couchbase Lite 2.x's `db.sqlite3` with LiteCore's schema, so
/// files made by Couchbase Lite 2.x open here and ours open there.
///
/// ```swift
/// let file = try SQLiteEngine().open(at: bundle + "/db.sqlite3", options: .init(create: true))
/// ```
package struct SQLiteEngine: StorageEngine {
    /// `SQLite`, the name the registry and `DatabaseConfiguration` use.
    package static let engineName = "SQLite"

    /// `db.sqlite3`.
    package var fileName: String { "db.sqlite3" }

    /// Makes the engine (it holds no state).
    package init() {}

    /// Whether `path` is a regular file starting with SQLite's magic header, or with the one
    /// this engine's encrypted files start with.
    package func recognises(fileAt path: String) -> Bool {
        var isFolder = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), !isFolder else { return false }
        let kind = SQLiteEncryption.kind(ofFileAt: path)
        return kind == .plaintext || kind == .encrypted
    }

    /// Removes the file and its `-wal` and `-shm` companions.
    package func delete(at path: String) throws {
        for suffix in ["", "-wal", "-shm", "-journal"] {
            let file = path + suffix
            guard FileManager.default.fileExists(atPath: file) else { continue }
            do {
                try FileManager.default.removeItem(atPath: file)
            } catch {
                throw StorageError(.ioError, "cannot delete \"\(file)\": \(fileErrorDescription(error))")
            }
        }
    }

    /// Opens or creates the file; see `StorageEngine.open`.
    package func open(at path: String, options: DataFileOptions) throws -> any DataFile {
        try openFile(at: path, options: options)
    }

    /// Opens or creates the file, returning the concrete type.
    package func openFile(at path: String, options: DataFileOptions) throws -> SQLiteDataFile {
        var isFolder = false
        let exists = FileManager.default.fileExists(atPath: path, isDirectory: &isFolder)
        if isFolder {
            let hint = FileManager.default.fileExists(atPath: path + "/CURRENT")
                ? " (it looks like a RocksDB database: open it with the RocksDB engine)" : ""
            throw StorageError(.notADatabaseFile, "\"\(path)\" is a folder, not a SQLite database file\(hint)")
        }
        let encryption = options.encryptionKey.map(SQLiteEncryption.init(key:))
        if !exists {
            guard options.create, !options.readOnly else {
                throw StorageError(.notFound, "SQLite database \"\(path)\" does not exist")
            }
            return try create(at: path, reader: options.valueReader, encryption: encryption)
        }
        let walExists = FileManager.default.fileExists(atPath: path + "-wal")
        let size = fileSize(atPath: path)
        if size == 0 && !walExists && options.create && !options.readOnly {
            // An empty file is what a creation interrupted before its first commit leaves.
            return try create(at: path, reader: options.valueReader, encryption: encryption)
        }
        // Judged from the file's bytes before SQLite opens it, so that a missing or wrong key
        // is reported without anything written.
        let header = try Self.header(ofFileAt: path, encryption: encryption)
        if !walExists {
            // Without a WAL the header's user_version is the real one; judge before opening.
            try Self.checkVersion(header.userVersion, path: path, allowZero: true)
            try validateImmutably(path, encryption: encryption)
        }
        return try openExisting(at: path, readOnly: options.readOnly, create: options.create, reader: options.valueReader,
                                encryption: encryption)
    }

    /// The file's header, after checking that it is encrypted exactly when a key is given and
    /// that the key decrypts it. Without a key this reads what it always did; only a file that
    /// is not plaintext SQLite is looked at again, to say why.
    private static func header(ofFileAt path: String, encryption: SQLiteEncryption?) throws -> SQLiteFileHeader {
        guard let encryption else {
            do {
                return try SQLiteFileHeader(path: path)
            } catch let error as StorageError where error.code == .notADatabaseFile {
                throw refusal(ofFileAt: path, kind: SQLiteEncryption.kind(ofFileAt: path), hasKey: false) ?? error
            }
        }
        let kind = SQLiteEncryption.kind(ofFileAt: path)
        if kind == .encrypted { return try encryption.header(ofFileAt: path) }
        if let refusal = refusal(ofFileAt: path, kind: kind, hasKey: true) { throw refusal }
        return try SQLiteFileHeader(path: path)
    }

    /// Why a file cannot be opened with (or without) a key, when its first bytes tell.
    private static func refusal(ofFileAt path: String, kind: SQLiteEncryption.FileKind?, hasKey: Bool) -> StorageError? {
        switch kind {
        case .encrypted where !hasKey:
            return StorageError(.notADatabaseFile, "SQLite database \"\(path)\" is encrypted; open it with its "
                                + "encryption key")
        case .plaintext where hasKey:
            return StorageError(.notADatabaseFile, "SQLite database \"\(path)\" is not encrypted, but an encryption "
                                + "key was given; open it without a key")
        case .unknown:
            // Page-structured but not SQLite's header: what an encrypting codec leaves.
            let size = fileSize(atPath: path) ?? 0
            guard size >= 512, size % 512 == 0 else { return nil }
            return StorageError(.notADatabaseFile, "\"\(path)\" is not a SQLite database this build can read: it does "
                                + "not start with \"SQLite format 3\" and is not encrypted the way this build encrypts. "
                                + "It may be encrypted with a key or codec this build cannot read (a Couchbase Lite "
                                + "Enterprise Edition database is encrypted with SQLite's SEE codec)")
        default:
            return nil
        }
    }

    private func create(at path: String, reader: (any RecordValueReader)?,
                        encryption: SQLiteEncryption?) throws -> SQLiteDataFile {
        let connection = try SQLiteConnection(
            path: path, flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_EXRESCODE, encryption: encryption)
        do {
            if let reader { try SQLiteFleeceFunctions.register(on: connection, reader: reader) }
            // Before the first page is written: each page's nonce and tag live in these bytes.
            if encryption != nil { try connection.reserveBytesPerPage(Int32(SQLitePageCipher.reserveSize)) }
            try connection.execute(SQLiteSchema.perConnectionSettings)
            try connection.execute(SQLiteSchema.createFile)
        } catch {
            connection.close()
            try? delete(at: path)  // allowed: removes only the file this call created; its creation error is the one reported
            throw error
        }
        return SQLiteDataFile(path: path, readOnly: false, writer: connection, hasPurgeCount: true, reader: reader,
                              encryption: encryption)
    }

    /// Reads the schema through an `immutable=1` connection, which takes no locks and writes no
    /// side files, so a damaged or foreign file is refused without being touched.
    private func validateImmutably(_ path: String, encryption: SQLiteEncryption?) throws {
        let uri = "file:" + path.percentEncodingPath()
            + "?immutable=1"
        let connection = try SQLiteConnection(path: path, flags: SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, uri: uri,
                                              encryption: encryption)
        defer { connection.close() }
        try Self.checkSchema(connection, path: path)
    }

    /// Checks `user_version` and that `kvmeta` is there (or that the file is empty).
    /// - Returns: whether the file has no tables at all (a file to initialise).
    @discardableResult
    private static func checkSchema(_ connection: SQLiteConnection, path: String) throws -> Bool {
        let version = try connection.integer("PRAGMA user_version")
        try checkVersion(version, path: path, allowZero: true)
        let tables = try connection.integer("SELECT count(*) FROM sqlite_master")
        if tables == 0 { return true }
        let hasMeta = try connection.integer(
            "SELECT count(*) FROM sqlite_master WHERE type='table' AND name='kvmeta'") > 0
        guard hasMeta, version != 0 else {
            throw StorageError(.notADatabaseFile, "\"\(path)\" is a SQLite database but not a Couchbase Lite one "
                               + "(no kvmeta table, user_version \(version))")
        }
        return false
    }

    private static func checkVersion(_ version: Int64, path: String, allowZero: Bool) throws {
        if version == 0 && allowZero { return }
        if version < SQLiteSchema.minimumVersion {
            throw StorageError(.databaseTooOld, "\"\(path)\" is a Couchbase Lite 1.x database (schema version "
                               + "\(version)); upgrade it to 2.x before opening", schemaVersion: Int(version))
        }
        if version >= SQLiteSchema.firstTooNewVersion {
            throw StorageError(.databaseTooNew, "\"\(path)\" was written by a newer Couchbase Lite (schema "
                               + "version \(version)); this version reads 2.x schemas (201…399)",
                               schemaVersion: Int(version))
        }
    }

    private func openExisting(at path: String, readOnly: Bool, create: Bool, reader: (any RecordValueReader)?,
                              encryption: SQLiteEncryption?) throws -> SQLiteDataFile {
        let connection = try SQLiteConnection(
            path: path, flags: (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE) | SQLITE_OPEN_EXRESCODE,
            encryption: encryption)
        do {
            if let reader { try SQLiteFleeceFunctions.register(on: connection, reader: reader) }
            try connection.execute("PRAGMA busy_timeout=10000")
            let isEmpty = try Self.checkSchema(connection, path: path)
            if isEmpty {
                guard create, !readOnly else {
                    throw StorageError(.notADatabaseFile, "\"\(path)\" is an empty SQLite database, not a "
                                       + "Couchbase Lite one; open it with the create option to initialise it")
                }
                try connection.execute(SQLiteSchema.perConnectionSettings)
                try connection.execute(SQLiteSchema.createFile)
                return SQLiteDataFile(path: path, readOnly: false, writer: connection, hasPurgeCount: true, reader: reader,
                                      encryption: encryption)
            }
            var version = try connection.integer("PRAGMA user_version")
            if readOnly {
                try connection.execute("PRAGMA case_sensitive_like=true; PRAGMA query_only=1")
            } else {
                try connection.execute(SQLiteSchema.perConnectionSettings + "PRAGMA journal_mode=WAL;")
                if version < SQLiteSchema.purgeCountVersion {
                    // As LiteCore 2.7+ does on open: 201/301 files gain kvmeta.purgeCnt.
                    try connection.execute("BEGIN IMMEDIATE;" + SQLiteSchema.addPurgeCount + "COMMIT;")
                    version = SQLiteSchema.currentVersion
                }
            }
            let hasPurgeCount = try connection.integer(
                "SELECT count(*) FROM pragma_table_info('kvmeta') WHERE name='purgeCnt'") > 0
            // A read-only file gets reader connections only: the opening one becomes the first
            // (a connection costs a tool's start about a millisecond).
            if readOnly {
                try connection.execute(SQLiteSchema.cacheSettings)
                return SQLiteDataFile(path: path, readOnly: true, writer: nil, hasPurgeCount: hasPurgeCount,
                                      reader: reader, firstReader: connection, encryption: encryption)
            }
            return SQLiteDataFile(path: path, readOnly: false, writer: connection, hasPurgeCount: hasPurgeCount,
                                  reader: reader, encryption: encryption)
        } catch {
            try? connection.execute("ROLLBACK")  // allowed: rolling back after a failure; that failure is the one reported
            connection.close()
            throw error
        }
    }
}
