import BlobStore
import DatabaseConversion
import Fleece
import Foundation
import LiteDatabase
import LiteQuery
import LiteText
import LiteStorage
import LiteSupport
import RocksDBStorage
import SQLiteStorage

/// A Couchbase Lite database: a `<name>.cblite2` folder of JSON documents, stored with SQLite or
/// RocksDB. Thread-safe: one instance can be used from any thread or task.
///
/// ```swift
/// let database = try Database(name: "travel")
/// let doc = MutableDocument(id: "hotel_1").setString("Ritz", forKey: "name")
/// try database.saveDocument(doc)
/// let name = database.document(withID: "hotel_1")?.string(forKey: "name")
/// ```
public final class Database: Sendable {
    /// Couchbase Lite's logging settings.
    public static let log: Log = {
        let log = Log()
        // What the core cannot throw (housekeeping on a timer, refreshes) reaches the same log.
        DatabaseLog.install { level, message in
            let publicLevel: LogLevel = switch level {
            case .verbose: .verbose
            case .info: .info
            case .warning: .warning
            case .error: .error
            }
            log.log(publicLevel, .database, message)
        }
        return log
    }()

    /// The database name.
    public let name: String
    /// A copy of the configuration the database was opened with.
    public let config: DatabaseConfiguration
    /// The open core; replaced (under this lock) only by ``changeEncryptionKey(_:)``.
    let opened: Locked<OpenedCore>
    /// The open core: its files, documents and indexes.
    var core: DatabaseCore { opened.withLock { $0.core } }
    /// Listeners run here unless they name a queue.
    let listenerQueue: DispatchQueue

    /// Opens the database `name` in `config.directory`, creating it if it does not exist.
    ///
    /// When `config.storageEngine` differs from the engine of the existing files, the database is
    /// first converted in place (see `InPlaceConversion`); an interrupted conversion is finished
    /// or undone on every open.
    ///
    /// - Throws: `CouchbaseLiteError` — `.invalidParameter` for a bad name, what opening or
    ///   converting the files reports, and for a Couchbase Lite 1.x database (which is upgraded
    ///   to 2.x first, into `config.storageEngine`): `.databaseTooOld` when
    ///   `config.upgradesLegacyDatabases` is false, or the refusal or failure of the upgrade
    ///   (see `docs/upgrading-from-1x.md`); the 1.x files are then unchanged.
    public init(name: String, config: DatabaseConfiguration = DatabaseConfiguration()) throws {
        _ = Self.log
        try CouchbaseLiteError.wrapping("opening database \"\(name)\"") {
            try DatabaseBundle.validate(name: name)
        }
        self.name = name
        self.config = DatabaseConfiguration(config: config)
        let bundle = DatabaseBundle(name: name, directory: self.config.directory)
        let engineName = self.config.storageEngine?.engineName
        let configuration = self.config
        Self.log.log(.verbose, .database, "Opening database \"\(name)\" in \(bundle.directory) "
            + "(engine: \(engineName ?? "as the files are, SQLite for a new database"))")
        let (core, encryptionKey) = try CouchbaseLiteError.wrapping("opening database \"\(name)\"") {
            try FileManager.default.createDirectory(atPath: bundle.directory, withIntermediateDirectories: true)
            try Self.upgradeLegacyDatabase(in: bundle, config: configuration)
            let encryptionKey = try configuration.encryptionKey?.aes256Key()
            try Self.convertIfNeeded(bundle, to: engineName, encryptionKey: encryptionKey)
            return (try DatabaseCore(bundle: bundle, registry: Self.engines, engineName: engineName,
                                     encryptionKey: encryptionKey), encryptionKey)
        }
        listenerQueue = DispatchQueue(label: "CouchbaseLite.\(name).listeners")
        try Self.startIndexesAndHousekeeping(of: core, name: name)
        opened = Locked(OpenedCore(core: core, encryptionKey: encryptionKey))
        Self.log.log(.info, .database, "Opened database \"\(name)\" at \(bundle.path) (\(core.engine.name))")
    }

    /// Opens the file's full-text and value indexes (every open instance keeps them up to date)
    /// and starts the expiration timer; closes `core` when an index cannot be opened.
    static func startIndexesAndHousekeeping(of core: DatabaseCore, name: String) throws {
        do {
            try LiteText.FullTextIndex.openAll(in: core)
            try LiteQuery.ValueIndex.openAll(in: core)
        } catch {
            try? core.close()  // allowed: closing after the failed index open, whose error is thrown
            throw CouchbaseLiteError(.corruptData, "database \"\(name)\": its indexes cannot be opened",
                                     underlying: error)
        }
        core.scheduleExpiration()
    }

    /// The storage engines databases can use, SQLite (the default) first.
    static let engines = StorageEngineRegistry(engines: [SQLiteEngine(), RocksDBEngine()])

    /// The bundle folder's path (ending in `/`), or nil once the database is closed.
    public var path: String? { core.isOpen ? core.bundle.path : nil }

    /// The number of documents (deleted ones are not counted); 0 once closed.
    public var count: UInt64 {
        guard core.isOpen else { return 0 }
        do {
            return UInt64(try documentCount())
        } catch {
            Self.log.log(.error, .database, "Cannot count the documents of \"\(name)\": \(error)")
            return 0
        }
    }

    /// The number of documents that are not deleted.
    ///
    /// - Throws: `CouchbaseLiteError` when the database is closed or cannot be read (where
    ///   ``count``, whose 2.x signature cannot throw, logs the error and answers 0).
    public func documentCount() throws -> Int {
        try CouchbaseLiteError.wrapping("counting the documents of \"\(name)\"") { try core.documentCount() }
    }

    /// The engine the database's files are in.
    public var storageEngine: StorageEngine {
        core.engine.name == StorageEngine.rocksdb.engineName ? .rocksdb : .sqlite
    }

    /// Closes the database; later calls fail with `.notOpen`. Closing twice does nothing.
    public func close() throws {
        let wasOpen = core.isOpen
        try CouchbaseLiteError.wrapping("closing database \"\(name)\"") { try core.close() }
        if wasOpen { Self.log.log(.info, .database, "Closed database \"\(name)\"") }
    }

    /// Closes the database and deletes its files.
    ///
    /// - Throws: `.busy` when another instance has the database open (in this process or
    ///   another); this one is closed then, and nothing is deleted.
    public func delete() throws {
        try close()
        try Self.removeBundle(core.bundle)
        Self.log.log(.info, .database, "Deleted database \"\(name)\" at \(core.bundle.path)")
    }

    /// Compacts the database and deletes blobs no document refers to any more.
    public func compact() throws {
        try performMaintenance(type: .compact)
    }

    /// Runs a maintenance task.
    ///
    /// - `.compact`: compacts the file and deletes blobs no kept revision refers to (it stops,
    ///   deleting nothing, if a revision's body cannot be read);
    /// - `.reindex`: rebuilds every index of the database from its documents;
    /// - `.integrityCheck`: checks the storage engine's structures, every document's revision
    ///   tree and bodies, and that every blob a document refers to exists; each problem is
    ///   logged, and the method throws `.corruptData` naming them.
    public func performMaintenance(type: MaintenanceType) throws {
        try CouchbaseLiteError.wrapping("maintenance of \"\(name)\"") {
            switch type {
            case .compact:
                Self.log.log(.verbose, .database, "Compacting database \"\(name)\"")
                _ = try core.compact()
                Self.log.log(.info, .database, "Compacted database \"\(name)\"")
            case .reindex:
                let rebuilt = try core.reindex()
                Self.log.log(.info, .database, "Rebuilt \(rebuilt) index(es) of \"\(name)\"")
            case .integrityCheck:
                let problems = try core.checkIntegrity()
                guard !problems.isEmpty else { return }
                for problem in problems { Self.log.log(.error, .database, "Integrity check of \"\(name)\": \(problem)") }
                let shown = problems.prefix(3).joined(separator: "; ")
                let more = problems.count > 3 ? "; and \(problems.count - 3) more (see the log)" : ""
                throw CouchbaseLiteError(.corruptData,
                                         "the integrity check of database \"\(name)\" found \(problems.count) problem(s): \(shown)\(more)")
            }
        }
    }

    /// The blob store of this database.
    var blobStore: BlobStore { core.blobStore }

    // MARK: - Files

    /// Whether a database with this name exists in `directory` (default: the default directory).
    public static func exists(withName name: String, inDirectory directory: String? = nil) -> Bool {
        DatabaseBundle(name: name, directory: directory ?? DatabaseConfiguration.defaultDirectory).exists
    }

    /// Deletes the database with this name in `directory`; a missing database is not an error.
    ///
    /// - Throws: `.busy` when the database is open (in this process or another): close every
    ///   instance first.
    public static func delete(withName name: String, inDirectory directory: String? = nil) throws {
        try removeBundle(DatabaseBundle(name: name, directory: directory ?? DatabaseConfiguration.defaultDirectory))
    }

    /// Copies the database bundle at `path` to a new database `name` in `config.directory`. The
    /// copy gets new UUIDs, so replicators treat it as a different database; a Couchbase Lite
    /// 1.x bundle is copied and the copy upgraded (unless `config` declines upgrades).
    ///
    /// - Throws: `.invalidParameter` when a database `name` already exists there.
    public static func copy(fromPath path: String, toDatabase name: String,
                            withConfig config: DatabaseConfiguration?) throws {
        let config = DatabaseConfiguration(config: config)
        try CouchbaseLiteError.wrapping("copying \(path) to \"\(name)\"") {
            try DatabaseBundle.validate(name: name)
            let destination = DatabaseBundle(name: name, directory: config.directory)
            guard !destination.exists else {
                throw CouchbaseLiteError(.invalidParameter, "cannot copy to \"\(name)\": a database with that name exists in \(config.directory)")
            }
            try FileManager.default.createDirectory(atPath: config.directory, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: path, toPath: destination.path)
            do {
                try upgradeLegacyDatabase(in: destination, config: config)
                // An encrypted database is copied as it is; `config` carries its key.
                let core = try DatabaseCore(bundle: destination, registry: engines, engineName: nil, create: false,
                                            encryptionKey: config.encryptionKey?.aes256Key())
                defer { try? core.close() }  // allowed: a defer cannot throw; regenerateUUIDs committed its transaction
                try core.regenerateUUIDs()
            } catch {
                try? FileManager.default.removeItem(atPath: destination.path)  // allowed: removing the partial copy; its error is thrown
                throw error
            }
            log.log(.info, .database, "Copied \(path) to database \"\(name)\" at \(destination.path)")
        }
    }

    private static func removeBundle(_ bundle: DatabaseBundle) throws {
        guard bundle.exists else { return }
        // Every open instance, in any process, holds the bundle's shared lock. Deleting the files
        // under one would lose whatever it wrote next, so an open database is refused, as
        // Couchbase Lite refuses it.
        let lock: BundleLock?
        do {
            lock = try BundleLock.exclusive(bundlePath: bundle.path, wait: false)
        } catch {
            throw CouchbaseLiteError(.ioError, "cannot delete database \"\(bundle.name)\" at \(bundle.path)", underlying: error)
        }
        guard let lock else {
            throw CouchbaseLiteError(.busy, "cannot delete database \"\(bundle.name)\" at \(bundle.path): it is open "
                                     + "(in this process or another); close every instance of it first")
        }
        defer { lock.release() }
        do {
            try FileManager.default.removeItem(atPath: bundle.path)
        } catch {
            throw CouchbaseLiteError(.ioError, "cannot delete database \"\(bundle.name)\" at \(bundle.path)", underlying: error)
        }
    }
}
