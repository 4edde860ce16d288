import FoundationEssentials

/// A storage engine, as the database registry lists it: its name, the file or folder it keeps
/// inside a `.cblite2` bundle, and how to recognise, open, create and delete that file.
///
/// ```swift
/// let engine: any StorageEngine = SQLiteEngine()
/// let path = engine.dataFilePath(inBundle: bundlePath)   // …/db.sqlite3
/// let file = try engine.open(at: path, options: .init(create: true))
/// ```
package protocol StorageEngine: Sendable {
    /// The engine's name, the one the registry and `DatabaseConfiguration` use: `SQLite`, `RocksDB`.
    static var engineName: String { get }
    /// The engine's name (``engineName``).
    var name: String { get }
    /// The file or folder name inside a bundle: `db.sqlite3`, `db.rocksdb`.
    var fileName: String { get }

    /// Whether something exists at `path` (which need not be this engine's).
    func exists(at path: String) -> Bool
    /// Whether the file or folder at `path` looks like this engine's (checks its format, not its
    /// name; does not modify anything).
    func recognises(fileAt path: String) -> Bool
    /// Opens (or with `options.create`, creates) the data file at `path`.
    ///
    /// - Throws: `StorageError` — `notFound` when missing and not creating; `notADatabase`,
    ///   `corrupt`, `databaseTooOld` (carrying the version), `databaseTooNew` without modifying
    ///   anything.
    func open(at path: String, options: DataFileOptions) throws -> any DataFile
    /// Deletes the data file at `path` and the engine's side files. Missing files are fine.
    func delete(at path: String) throws
}

extension StorageEngine {
    /// ``engineName``.
    package var name: String { Self.engineName }

    /// Whether a file or folder exists at `path` (which need not be this engine's).
    package func exists(at path: String) -> Bool {
        FileManager.default.fileExists(atPath: path)
    }

    /// The data file's location inside a `.cblite2` bundle folder.
    package func dataFilePath(inBundle bundlePath: String) -> String {
        bundlePath.hasSuffix("/") ? bundlePath + fileName : bundlePath + "/" + fileName
    }
}
