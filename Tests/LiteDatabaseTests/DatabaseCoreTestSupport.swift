import Fleece
import Foundation
import LiteStorage
import TestSupport
@testable import LiteDatabase

extension StorageEngineKind {
    /// A registry whose default engine is this one (the other one is listed too).
    var registry: StorageEngineRegistry {
        let engines = [engine, other.engine]
        return StorageEngineRegistry(engines: engines.enumerated().filter { index, candidate in
            !engines[..<index].contains { $0.name == candidate.name }
        }.map(\.element))
    }
}

/// Opens a new database named "test" in a fresh temporary directory.
@discardableResult
func withTemporaryCore<T>(_ engine: StorageEngineKind, _ body: (DatabaseCore, TemporaryDirectory) throws -> T) throws -> T {
    try withTemporaryDirectory { directory in
        let core = try DatabaseCore(bundle: DatabaseBundle(name: "test", directory: directory.path),
                                    registry: engine.registry, engineName: engine.engine.name)
        defer { try? core.close() }
        return try body(core, directory)
    }
}

/// Saves `json` (a JSON object) as the next revision of `id`.
@discardableResult
func save(_ core: DatabaseCore, _ id: String, _ json: String, base: RevisionID? = nil,
          policy: ConcurrencyPolicy = .failOnConflict) throws -> StoredDocument? {
    try core.saveRevision(id: id, base: base, policy: policy) { encoder in
        let bytes = Array(json.utf8)
        try bytes.withUnsafeBytes { try JSONConverter.write(json: $0, to: encoder) }
    }
}

/// The current body of a stored document as JSON.
func json(_ core: DatabaseCore, _ id: String) throws -> String? {
    guard let document = try core.document(id: id), let body = try document.body(sharedKeys: core.sharedKeys) else {
        return nil
    }
    return body.root.json()
}
