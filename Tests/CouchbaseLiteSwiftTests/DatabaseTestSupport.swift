import CouchbaseLiteSwift
import Foundation
import TestSupport

extension StorageEngineKind {
    /// The public API's name for this engine.
    var publicEngine: StorageEngine {
        switch self {
        case .sqlite: .sqlite
        case .rocksdb: .rocksdb
        }
    }

    /// A configuration that puts databases in `directory` with this engine.
    func config(in directory: TemporaryDirectory) -> DatabaseConfiguration {
        let config = DatabaseConfiguration()
        config.directory = directory.path
        config.storageEngine = publicEngine
        return config
    }
}

/// Opens a new database "test" with `engine` in a fresh directory, closes it afterwards.
@discardableResult
func withDatabase<T>(_ engine: StorageEngineKind, name: String = "test",
                     _ body: (Database, TemporaryDirectory) throws -> T) throws -> T {
    try withTemporaryDirectory { directory in
        let database = try Database(name: name, config: engine.config(in: directory))
        defer { try? database.close() }
        return try body(database, directory)
    }
}

/// Runs `body` with a mutable document saved as `data` under `id`.
@discardableResult
func saved(_ database: Database, _ id: String, _ data: [String: Any]) throws -> MutableDocument {
    let document = MutableDocument(id: id, data: data)
    try database.saveDocument(document)
    return document
}

/// The code of the `CouchbaseLiteError` that `body` throws: nil when it throws nothing or
/// another type, so `#expect(errorCode { … } == .notFound)` checks the promised code, not only
/// that something failed.
func errorCode(_ body: () throws -> Void) -> CouchbaseLiteError.Code? {
    do {
        try body()
        return nil
    } catch let error as CouchbaseLiteError {
        return error.code
    } catch {
        return nil
    }
}
