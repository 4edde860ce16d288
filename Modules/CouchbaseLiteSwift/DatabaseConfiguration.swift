import Foundation
import LiteSupport

/// Options for opening a ``Database``.
///
/// ```swift
/// let config = DatabaseConfiguration()
/// config.directory = "/var/lib/myapp"
/// config.storageEngine = .rocksdb
/// let database = try Database(name: "orders", config: config)
/// ```
public final class DatabaseConfiguration: Sendable {
    /// The folder that holds the database bundle; by default the current directory's
    /// `CouchbaseLite` folder.
    public var directory: String {
        get { settings.withLock { $0.directory } }
        set { settings.withLock { $0.directory = newValue } }
    }

    /// The engine a new database uses (SQLite when nil). An existing database opens in the engine
    /// its files are in when this is nil; naming another engine converts it in place when it is
    /// opened (built beside the original, verified, then swapped in; a crash leaves a usable
    /// database).
    public var storageEngine: StorageEngine? {
        get { settings.withLock { $0.storageEngine } }
        set { settings.withLock { $0.storageEngine = newValue } }
    }

    /// Whether opening a Couchbase Lite 1.x database upgrades it to 2.x (the default). When
    /// false, opening one throws `.databaseTooOld` and changes nothing, so an app can ask its
    /// user (or make a backup) first and then open it again with this set to true.
    ///
    /// ```swift
    /// let config = DatabaseConfiguration()
    /// config.upgradesLegacyDatabases = false
    /// do {
    ///     database = try Database(name: "app", config: config)
    /// } catch let error as CouchbaseLiteError where error.code == .databaseTooOld {
    ///     // a 1.x database: confirm, then open with upgradesLegacyDatabases = true
    /// }
    /// ```
    public var upgradesLegacyDatabases: Bool {
        get { settings.withLock { $0.upgradesLegacyDatabases } }
        set { settings.withLock { $0.upgradesLegacyDatabases = newValue } }
    }

    /// The key the database is encrypted with at rest, or nil for a plaintext database (the
    /// default). A new database is created encrypted with it; an existing one opens only with
    /// the key it was encrypted with (a wrong or missing key fails with `.notADatabaseFile`
    /// and leaves the files untouched). SQLite engine only, for now.
    ///
    /// ```swift
    /// let config = DatabaseConfiguration()
    /// config.encryptionKey = .key(keyFromTheKeychain)       // 32 random bytes
    /// // or: config.encryptionKey = .password(userPassword)
    /// let database = try Database(name: "health", config: config)
    /// ```
    public var encryptionKey: EncryptionKey? {
        get { settings.withLock { $0.encryptionKey } }
        set { settings.withLock { $0.encryptionKey = newValue } }
    }

    /// The settings, behind one lock (a configuration may be shared between threads).
    private struct Settings: Sendable {
        var directory: String
        var storageEngine: StorageEngine?
        var upgradesLegacyDatabases: Bool
        var encryptionKey: EncryptionKey?
    }
    private let settings: Locked<Settings>

    /// Makes the default configuration.
    public init() {
        settings = Locked(Settings(directory: Self.defaultDirectory, storageEngine: nil, upgradesLegacyDatabases: true))
    }

    /// Makes a copy of another configuration.
    public init(config: DatabaseConfiguration?) {
        let copied = config?.settings.withLock { $0 }
        settings = Locked(copied ?? Settings(directory: Self.defaultDirectory, storageEngine: nil,
                                             upgradesLegacyDatabases: true))
    }

    /// `<current directory>/CouchbaseLite`.
    public static var defaultDirectory: String {
        (FileManager.default.currentDirectoryPath as NSString).appendingPathComponent("CouchbaseLite")
    }
}
