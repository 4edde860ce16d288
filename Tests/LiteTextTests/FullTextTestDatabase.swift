import Fleece
import Foundation
import LiteDatabase
import LiteStorage
import TestSupport

/// A temporary database core on one engine, for full-text tests.
enum FullTextTestDatabase {
    /// Runs `body` with an empty core on `engine`.
    static func withCore<T>(_ engine: StorageEngineKind, _ body: (DatabaseCore) throws -> T) throws -> T {
        try withTemporaryDirectory { directory in
            let registry = StorageEngineRegistry(engines: [engine.engine, engine.other.engine])
            let core = try DatabaseCore(bundle: DatabaseBundle(name: "fts", directory: directory.path),
                                        registry: registry, engineName: engine.engine.name)
            defer { try? core.close() }   // allowed: closing a temporary database after the test
            return try body(core)
        }
    }

    /// Runs `body` with a core holding the JSON Lines fixture `query/<file>`, documents named as
    /// LiteCore's tests name them (`0000001` for line 1).
    static func withFixtureCore<T>(_ engine: StorageEngineKind, _ file: String,
                                   _ body: (DatabaseCore) throws -> T) throws -> T {
        try withCore(engine) { core in
            let lines = String(decoding: try Fixtures.data("query/\(file)"), as: UTF8.self)
                .split(separator: "\n").filter { !$0.isEmpty }
            try core.inTransaction { _ in
                for (index, line) in lines.enumerated() {
                    try save(core, String(format: "%07d", index + 1), String(line))
                }
            }
            return try body(core)
        }
    }

    /// Saves `json` as the current revision of `id` (on top of `base`).
    static func save(_ core: DatabaseCore, _ id: String, _ json: String, base: RevisionID? = nil) throws {
        try core.saveRevision(id: id, base: base, policy: .lastWriteWins) { encoder in
            try Array(json.utf8).withUnsafeBytes { try JSONConverter.write(json: $0, to: encoder) }
        }
    }

    /// Saves a document whose properties are the given strings.
    static func save(_ core: DatabaseCore, _ id: String, properties: [String: String], base: RevisionID? = nil) throws {
        let data = try JSONSerialization.data(withJSONObject: properties, options: [.sortedKeys])
        try save(core, id, String(decoding: data, as: UTF8.self), base: base)
    }
}
