import CouchbaseLiteSwift
import CSQLite
import Foundation
import Testing
import TestSupport
@testable import LiteDatabase
import Fleece

/// Databases made by real Couchbase Lite (shared/fixtures/v2), opened with the public API, and
/// databases made here checked against Couchbase Lite's on-disk formats.
@Suite(.ownThreads) struct RealDatabaseTests {
    private func openFixture(_ path: String, name: String, in directory: TemporaryDirectory) throws -> Database {
        try Fixtures.copy(path, into: directory)
        let config = DatabaseConfiguration()
        config.directory = directory.path
        return try Database(name: name, config: config)
    }

    @Test func upgrade27DatabaseMeetsItsExpectations() throws {
        let directory = try TemporaryDirectory()
        let database = try openFixture("v2/upgrade_2.7.cblite2", name: "upgrade_2.7", in: directory)
        defer { try? database.close() }
        #expect(database.storageEngine == .sqlite)
        #expect(database.count == 50)
        for number in 1...100 {
            let id = String(format: "doc-%03d", number)
            let doc = database.document(withID: id)
            if number > 50 {
                #expect(doc == nil, "\(id) is deleted")
            } else {
                #expect(doc?.int(forKey: "n") == number)
                #expect(doc?.boolean(forKey: "even") == (number % 2 == 0))
            }
        }
        // Updating deleted doc-051 brings it back.
        try database.saveDocument(MutableDocument(id: "doc-051").setInt(51, forKey: "n"))
        #expect(database.count == 51)
        // Deleting an already-deleted document changes nothing.
        #expect(errorCode { try database.deleteDocument(MutableDocument(id: "doc-052")) } == .notFound)
        #expect(database.count == 51)
        try database.deleteDocument(try #require(database.document(withID: "doc-051")))
        #expect(database.count == 50)
    }

    @Test func deletedDocumentsKeepTheirPropertiesInTheFile() throws {
        let directory = try TemporaryDirectory()
        try Fixtures.copy("v2/upgrade_2.7.cblite2", into: directory)
        let core = try DatabaseCore(bundle: DatabaseBundle(name: "upgrade_2.7", directory: directory.path),
                                    registry: StorageEngineRegistry(engines: [StorageEngineKind.sqlite.engine]),
                                    engineName: nil, create: false)
        defer { try? core.close() }
        let deleted = try #require(try core.document(id: "doc-077"))
        #expect(deleted.isDeleted)
        #expect(try deleted.body(sharedKeys: core.sharedKeys)?.root.dictionary?["n"]?.int64 == 77)
    }

    @Test func sqliteDatabasesUseCouchbaseLiteFormats() throws {
        let directory = try TemporaryDirectory()
        let config = StorageEngineKind.sqlite.config(in: directory)
        let database = try Database(name: "formats", config: config)
        let doc = MutableDocument(id: "hotel").setString("Ritz", forKey: "name").setInt(5, forKey: "stars")
        try database.saveDocument(doc)
        doc.setInt(4, forKey: "stars")
        try database.saveDocument(doc)
        let revisionID = try #require(doc.revisionID)
        let file = (try #require(database.path) as NSString).appendingPathComponent("db.sqlite3")
        try database.close()

        let rows = SQLiteRows(path: file)
        #expect(try rows.integer("PRAGMA user_version") == 302)
        #expect(try rows.text("SELECT sql FROM sqlite_master WHERE name = 'kv_default'")
                == "CREATE TABLE kv_default (key TEXT PRIMARY KEY, sequence INTEGER, flags INTEGER DEFAULT 0, version BLOB, body BLOB)")
        // `version` holds the current revision ID in binary form.
        let version = try rows.blob("SELECT version FROM kv_default WHERE key = 'hotel'")
        #expect(try RevisionID(binary: version).string == revisionID)
        // `body` is LiteCore's binary rev tree: current revision first, with its Fleece body,
        // and its parent without one.
        let tree = try RevisionTree(encoded: try rows.blob("SELECT body FROM kv_default WHERE key = 'hotel'"),
                                    recordSequence: 2)
        #expect(tree.count == 2)
        #expect(tree.current?.id.string == revisionID)
        #expect(tree.revisions[1].body == nil)
        // Shared keys are a Fleece array of strings in the `info` store, and the body uses them.
        let keys = try SharedKeys(persisted: try rows.blob("SELECT body FROM kv_info WHERE key = 'SharedKeys'"))
        #expect(keys.keys == ["name", "stars"])
        let body = try FleeceDocument(bytes: try #require(tree.current?.body), sharedKeys: keys)
        #expect(body.root.json() == #"{"name":"Ritz","stars":4}"#)
        #expect(try rows.blob("SELECT body FROM kv_info WHERE key = 'privateUUID'").count == 16)
    }
}

/// Reads single values with the raw SQLite C API, independently of our storage engine.
private struct SQLiteRows {
    let path: String

    private func withStatement<T>(_ sql: String, _ body: (OpaquePointer) -> T) throws -> T {
        var db: OpaquePointer?
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, nil) == SQLITE_OK, let db else {
            throw CouchbaseLiteError(.cantOpenFile, "cannot open \(path)")
        }
        defer { sqlite3_close(db) }
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, let statement,
              sqlite3_step(statement) == SQLITE_ROW else {
            throw CouchbaseLiteError(.unexpectedError, "no row for \(sql)")
        }
        defer { sqlite3_finalize(statement) }
        return body(statement)
    }

    func integer(_ sql: String) throws -> Int64 { try withStatement(sql) { sqlite3_column_int64($0, 0) } }

    func text(_ sql: String) throws -> String {
        try withStatement(sql) { String(cString: sqlite3_column_text($0, 0)) }
    }

    func blob(_ sql: String) throws -> [UInt8] {
        try withStatement(sql) { statement in
            let count = Int(sqlite3_column_bytes(statement, 0))
            guard let bytes = sqlite3_column_blob(statement, 0) else { return [] }
            return Array(UnsafeRawBufferPointer(start: bytes, count: count))
        }
    }
}
