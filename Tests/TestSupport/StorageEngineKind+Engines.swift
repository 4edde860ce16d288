import Foundation
import LiteStorage
import RocksDBStorage
import SQLiteStorage

extension StorageEngineKind {
    /// The engine this kind names.
    package var engine: any StorageEngine {
        switch self {
        case .sqlite: SQLiteEngine()
        case .rocksdb: RocksDBEngine()
        }
    }

    /// The other engine (for "opening the other engine's files" checks).
    package var other: StorageEngineKind { self == .sqlite ? .rocksdb : .sqlite }

    /// A data file location inside `directory`, named as the engine names it in a bundle.
    package func dataFilePath(in directory: TemporaryDirectory) -> String {
        engine.dataFilePath(inBundle: directory.path)
    }

    /// Creates a new, empty data file in `directory`.
    package func createDataFile(in directory: TemporaryDirectory) throws -> any DataFile {
        try engine.open(at: dataFilePath(in: directory), options: DataFileOptions(create: true))
    }

    /// Opens the data file at `path`.
    package func open(_ path: String, readOnly: Bool = false) throws -> any DataFile {
        try engine.open(at: path, options: DataFileOptions(create: false, readOnly: readOnly))
    }
}

/// Runs `body` with a new data file of `engine` in a fresh temporary directory, then closes it
/// and removes the directory.
///
/// ```swift
/// try withTemporaryDataFile(engine) { file in
///     let store = try file.keyStore("default")
///     …
/// }
/// ```
package func withTemporaryDataFile<T>(_ engine: StorageEngineKind,
                                      _ body: (any DataFile) throws -> T) throws -> T {
    try withTemporaryDirectory { directory in
        let file = try engine.createDataFile(in: directory)
        defer { try? file.close() }
        return try body(file)
    }
}
