import DatabaseConversion
import FoundationEssentials
import LiteDatabase
import LiteQuery
import LiteStorage
import LiteSupport
import LiteText
import RocksDBStorage
import SQLiteStorage
import Upgrader

/// A `.cblite2` bundle named on a command line, and how the tools open it.
///
/// ```swift
/// let location = try DatabaseLocation(path: "travel.cblite2")
/// let core = try location.open(.readOnly)
/// ```
package struct DatabaseLocation: Sendable {
    /// How a command opens a database.
    package enum AccessMode: Sendable {
        /// Read only; the database must exist and nothing on disk changes.
        case readOnly
        /// Read-write; the database must exist.
        case readWrite
        /// Read-write, creating a new database with `engine` when there is none.
        case create(engine: String?)
    }

    /// The engines the tools know, SQLite (the default for new databases) first.
    package static let registry = StorageEngineRegistry(engines: [SQLiteEngine(), RocksDBEngine()])

    /// The bundle.
    package let bundle: DatabaseBundle
    /// The key the database is encrypted with (and a new one is created encrypted with); nil:
    /// plaintext.
    package var encryptionKey: AES256Key?

    /// Parses a bundle path (`dir/name.cblite2`, with or without a trailing `/`).
    /// - Throws: `.invalidArgument` when the path does not end in `.cblite2` or names no database.
    package init(path: String, encryptionKey: AES256Key? = nil) throws {
        self.encryptionKey = encryptionKey
        var trimmed = path
        while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed.removeLast() }
        let url = URL(fileURLWithPath: trimmed)
        guard url.pathExtension == DatabaseBundle.pathExtension else {
            throw DatabaseToolsError(.invalidArgument, "\"\(path)\" is not a database bundle: its name must end "
                                     + "in .\(DatabaseBundle.pathExtension)")
        }
        let name = url.deletingPathExtension().lastPathComponent
        guard !name.isEmpty else {
            throw DatabaseToolsError(.invalidArgument, "\"\(path)\" has no database name before .cblite2")
        }
        bundle = DatabaseBundle(name: name, directory: url.deletingLastPathComponent().path)
    }

    /// The bundle folder (ending in `/`).
    package var path: String { bundle.path }

    /// What the bundle holds, without modifying it.
    package var format: DatabaseFormat { DatabaseFormat.detect(at: bundle.path) }

    /// The engine whose files the bundle holds, or nil when it holds none.
    package var engine: (any StorageEngine)? { Self.registry.engine(ofBundle: bundle.path) }

    /// The engine named `name` (`sqlite`, `rocksdb`, any case).
    /// - Throws: `.invalidArgument` naming the known engines.
    package static func engine(named name: String) throws -> any StorageEngine {
        guard let engine = registry.engine(named: name) else {
            throw DatabaseToolsError(.invalidArgument, "unknown storage engine \"\(name)\"; use one of: "
                                     + registry.engines.map { $0.name.lowercased() }.joined(separator: ", "))
        }
        return engine
    }

    /// Opens the database. A 1.x database is refused (`.upgradeRequired`): reading never
    /// upgrades; see ``LegacyUpgrade`` for the explicit upgrade.
    package func open(_ mode: AccessMode) throws -> DatabaseCore {
        try refuseLegacy()
        try BundleRecovery.recover(bundlePath: bundle.path, registry: Self.registry)
        let engineName: String?
        let create: Bool
        switch mode {
        case .readOnly, .readWrite:
            guard engine != nil || !Self.registry.enginesWithFiles(inBundle: bundle.path).isEmpty else {
                throw DatabaseToolsError(.notFound, "no database at \(bundle.path)")
            }
            engineName = nil
            create = false
        case .create(let engine):
            engineName = try engine.map { try Self.engine(named: $0).name }
            create = true
        }
        if create, engineName != nil, self.engine != nil {
            // An existing database keeps its engine; `--engine` only chooses for a new one.
            return try open(engineName: nil, create: false, readOnly: false)
        }
        if create {
            try DatabaseToolsError.wrapping(.ioFailure, "cannot create the folder \(bundle.directory)") {
                try FileManager.default.createDirectory(atPath: bundle.directory, withIntermediateDirectories: true)
            }
        }
        if case .readOnly = mode { return try open(engineName: nil, create: false, readOnly: true) }
        return try open(engineName: engineName, create: create, readOnly: false)
    }

    private func open(engineName: String?, create: Bool, readOnly: Bool) throws -> DatabaseCore {
        try DatabaseToolsError.wrapping(.ioFailure, "cannot open database \(bundle.path)") {
            let core = try DatabaseCore(bundle: bundle, registry: Self.registry, engineName: engineName,
                                        create: create, readOnly: readOnly, encryptionKey: encryptionKey)
            // Writes through the tools keep the file's full-text indexes up to date too.
            do {
                if !readOnly {
                    try FullTextIndex.openAll(in: core)
                    try ValueIndex.openAll(in: core)
                }
            } catch {
                try? core.close()  // allowed: the index error is the one reported; this only lets go of the file
                throw error
            }
            return core
        }
    }

    /// Throws `.upgradeRequired` for a 1.x database.
    package func refuseLegacy() throws {
        let format = self.format  // detected once: it reads the data file's header and WAL
        if case .legacySQLite(let version) = format {
            throw DatabaseToolsError(.upgradeRequired, "\(bundle.path) is a Couchbase Lite 1.x database (schema "
                                     + "version \(version)); pass --upgrade to upgrade it to 2.x first")
        }
        if !format.isUpgradable, engine == nil, case .some(let refusal) = format.refusal(path: bundle.path),
           format != .absent {
            throw DatabaseToolsError(.ioFailure, refusal.message)
        }
    }
}
