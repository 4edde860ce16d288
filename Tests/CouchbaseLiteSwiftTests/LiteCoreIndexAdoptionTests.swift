import CSQLite
import Foundation
import LiteQuery
import LiteStorage
import Testing
import TestSupport
@testable import CouchbaseLiteSwift
@testable import LiteDatabase

/// Real Couchbase Lite 2.8's value index `index1` (firstName, lastName) in
/// `v2/upgrade_2.8_index.cblite2` becomes one of ours when the file opens: listed, used by the
/// planner, kept in step — while LiteCore's own SQLite index stays in the file, still correct
/// (SQLite's integrity check recomputes it) and still answering through its expressions.
///
/// Checked by hand with real Couchbase Lite 2.8's `cblite` (LiteCore 72062d27) on a copy after
/// our saves, an index of ours and the adoption: `check` passes, `info -v` lists only `index1`,
/// and `firstName = 'Zed'` runs as `SEARCH _doc USING INDEX index1 (<expr>=?)` returning our
/// document; after our `drop-index index1` it lists no index and the query is a `SCAN`.
@Suite(.ownThreads) struct LiteCoreIndexAdoptionTests {
    private static let fixture = "v2/upgrade_2.8_index.cblite2"
    private static let name = "upgrade_2.8_index"

    private func open(_ directory: TemporaryDirectory) throws -> Database {
        let config = DatabaseConfiguration()
        config.directory = directory.path
        return try Database(name: Self.name, config: config)
    }

    /// Runs SQL on the copy's `db.sqlite3` with the raw SQLite API, as another program (here:
    /// what real Couchbase Lite does to its own tables) would.
    private func execute(_ sql: String, in directory: TemporaryDirectory) throws {
        var handle: OpaquePointer?
        let path = directory.appending(Self.name + ".cblite2/db.sqlite3").path
        guard sqlite3_open(path, &handle) == SQLITE_OK else { throw StorageError(.ioError, "cannot open \(path)") }
        defer { sqlite3_close(handle) }
        var message: UnsafeMutablePointer<CChar>?
        guard sqlite3_exec(handle, sql, nil, nil, &message) == SQLITE_OK else {
            defer { sqlite3_free(message) }
            throw StorageError(.unexpectedError, message.map { String(cString: $0) } ?? "SQL failed")
        }
    }

    /// The first column of each row `sql` returns, with the raw SQLite API and LiteCore's
    /// connection setting `case_sensitive_like` (which its LIKE queries below depend on).
    private func strings(_ sql: String, in directory: TemporaryDirectory) throws -> [String] {
        var handle: OpaquePointer?
        let path = directory.appending(Self.name + ".cblite2/db.sqlite3").path
        guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READONLY, nil) == SQLITE_OK else {
            throw StorageError(.ioError, "cannot open \(path)")
        }
        defer { sqlite3_close(handle) }
        sqlite3_exec(handle, "PRAGMA case_sensitive_like=true", nil, nil, nil)
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK else {
            throw StorageError(.unexpectedError, String(cString: sqlite3_errmsg(handle)))
        }
        defer { sqlite3_finalize(statement) }
        var rows: [String] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            rows.append(sqlite3_column_text(statement, 0).map { String(cString: $0) } ?? "")
        }
        return rows
    }

    private func ids(_ database: Database, firstName: String) throws -> [String] {
        try database.createQuery(json: #"{"WHAT":[["._id"]],"WHERE":["=",[".firstName"],"\#(firstName)"]}"#)
            .execute().map { $0.string(at: 0) ?? "" }.sorted()
    }

    private func explain(_ database: Database) throws -> String {
        try database.createQuery(json: #"{"WHAT":[["._id"]],"WHERE":["=",[".firstName"],"Zed"]}"#).explain()
    }

    @Test func theIndexIsAdoptedListedAndUsedAndLiteCoresStaysValid() throws {
        let directory = try TemporaryDirectory()
        try Fixtures.copy(Self.fixture, into: directory)
        let database = try open(directory)
        defer { try? database.close() }
        #expect(database.indexes == ["index1"])
        let stored = try ValueIndex.stored(in: database.core)
        #expect(stored.map(\.name) == ["index1"])
        #expect(stored.first?.definition == #"[[".firstName"],[".lastName"]]"#)
        #expect(stored.first?.isAdopted == true)
        #expect(stored.first?.isCurrent == true)

        // The two documents Couchbase Lite saved (both with firstName "fName") are in the
        // adopted index.
        let existing = try database.createQuery(json: #"{"WHAT":[["._id"]]}"#).execute().map { $0.string(at: 0) ?? "" }
        #expect(existing.count == 2)
        #expect(try ids(database, firstName: "fName") == existing.sorted())

        try database.saveDocument(MutableDocument(id: "added", data: ["firstName": "Zed", "lastName": "Zulu"]))
        #expect(try explain(database).contains("index \"index1\""))
        #expect(try ids(database, firstName: "Zed") == ["added"])
        try database.performMaintenance(type: .integrityCheck)

        // LiteCore's own index still evaluates its expressions, and holds the new document.
        let holder = try #require(database.core.dataFile as? any ForeignIndexHolding)
        let entries = try holder.foreignIndexEntries(named: "index1")
        #expect(entries.count == 3)
        #expect(entries.contains(ForeignIndexEntry(recordKey: "added", values: [.text("Zed"), .text("Zulu")])))
        // Read through the index, so in its order (SQLite's binary order of the first names).
        let firstNames = entries.compactMap { entry -> String? in
            if case .text(let text) = entry.values.first { return text }
            return nil
        }
        #expect(firstNames.count == 3)
        #expect(firstNames == firstNames.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) })
    }

    /// How LiteCore 2.8 (source at 72062d27) finds key stores and, in a file without an
    /// `indexes` table, indexes: our `bk_*` tables and their automatic indexes are never among
    /// them, whatever indexes of ours the file holds.
    @Test func couchbaseLitesOwnQueriesNeverFindOurTables() throws {
        let directory = try TemporaryDirectory()
        try Fixtures.copy(Self.fixture, into: directory)
        do {
            let database = try open(directory)
            defer { try? database.close() }
            try database.createIndex(IndexBuilder.valueIndex(items: ValueIndexItem.property("lastName")), withName: "byLast")
            try database.createIndex(IndexBuilder.fullTextIndex(items: FullTextIndexItem.property("lastName")), withName: "text")
            try database.saveDocument(MutableDocument(id: "added", data: ["firstName": "Zed", "lastName": "Zulu"]))
        }
        #expect(try strings("SELECT name FROM sqlite_master WHERE type='table' AND name GLOB 'bk_*' ORDER BY name", in: directory)
                == ["bk_fts:text", "bk_value:byLast", "bk_value:index1"])
        // SQLiteDataFile::allKeyStoreNames (SQLiteKeyStore.cc).
        #expect(try strings("SELECT substr(name,4) FROM sqlite_master WHERE type='table' AND name GLOB 'kv_*' ORDER BY name",
                            in: directory) == ["default", "info"])
        // SQLiteDataFile::getIndexesOldStyle (SQLiteDataFile+Indexes.cc), value and FTS indexes.
        #expect(try strings("""
            SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name LIKE 'kv_%'             AND name NOT LIKE 'kv_%_seqs' AND sql NOT NULL
            """, in: directory) == ["index1"])
        #expect(try strings("""
            SELECT name FROM sqlite_master WHERE type='table' AND name like '%::%'             AND sql LIKE 'CREATE VIRTUAL TABLE % USING fts%'
            """, in: directory) == [])
        #expect(try strings("SELECT name FROM indexes", in: directory) == ["index1"])
    }

    /// With RocksDB configured the file is converted in place first; LiteCore's index then
    /// exists only as a carried definition, and is adopted from it.
    @Test(arguments: StorageEngineKind.allCases)
    func theIndexIsAdoptedAndUsedOnEitherEngine(engine: StorageEngineKind) throws {
        let directory = try TemporaryDirectory()
        try Fixtures.copy(Self.fixture, into: directory)
        let database = try Database(name: Self.name, config: engine.config(in: directory))
        defer { try? database.close() }
        #expect(database.core.engine.name == engine.engine.name)
        #expect(database.indexes == ["index1"])
        try database.saveDocument(MutableDocument(id: "added", data: ["firstName": "Zed", "lastName": "Zulu"]))
        #expect(try explain(database).contains("index \"index1\""))
        #expect(try ids(database, firstName: "Zed") == ["added"])
        #expect(try ids(database, firstName: "fName").count == 2)
        try database.deleteIndex(forName: "index1")
        #expect(database.indexes == [])
        try database.performMaintenance(type: .integrityCheck)
    }

    /// Converted in place to RocksDB and back, the file has LiteCore's SQL index again (made
    /// from the carried definition), holding the documents saved meanwhile.
    @Test func aRoundTripThroughRocksDBGivesCouchbaseLiteItsIndexBack() throws {
        let directory = try TemporaryDirectory()
        try Fixtures.copy(Self.fixture, into: directory)
        do {
            let rocks = try Database(name: Self.name, config: StorageEngineKind.rocksdb.config(in: directory))
            defer { try? rocks.close() }
            try rocks.saveDocument(MutableDocument(id: "added", data: ["firstName": "Zed", "lastName": "Zulu"]))
        }
        let database = try Database(name: Self.name, config: StorageEngineKind.sqlite.config(in: directory))
        defer { try? database.close() }
        #expect(database.indexes == ["index1"])
        #expect(try ids(database, firstName: "Zed") == ["added"])
        let holder = try #require(database.core.dataFile as? any ForeignIndexHolding)
        #expect(try holder.foreignIndexEntries(named: "index1").map(\.recordKey).sorted()
                == ["-3aW8VeEWNHiXlvj6lhl2Cl", "-4xUa8BVjx0TiT_iCFWjpzM", "added"])
        #expect(try database.core.dataFile.carriedForeignIndexes().isEmpty)
        try database.performMaintenance(type: .integrityCheck)
    }

    @Test func aFileWithoutAnIndexesTableIsAdoptedFromItsSQL() throws {
        let directory = try TemporaryDirectory()
        try Fixtures.copy(Self.fixture, into: directory)
        // Before Couchbase Lite 2.5 the SQL index in sqlite_master was the only record.
        try execute("DROP TABLE indexes", in: directory)
        let database = try open(directory)
        defer { try? database.close() }
        #expect(database.indexes == ["index1"])
        #expect(try ValueIndex.stored(in: database.core).first?.definition == #"[[".firstName"],[".lastName"]]"#)
        try database.saveDocument(MutableDocument(id: "added", data: ["firstName": "Zed", "lastName": "Zulu"]))
        #expect(try explain(database).contains("index \"index1\""))
        #expect(try ids(database, firstName: "Zed") == ["added"])
        try database.performMaintenance(type: .integrityCheck)
    }

    @Test func deletingAnAdoptedIndexDeletesLiteCoresSoItIsNotAdoptedAgain() throws {
        let directory = try TemporaryDirectory()
        try Fixtures.copy(Self.fixture, into: directory)
        do {
            let database = try open(directory)
            defer { try? database.close() }
            try database.deleteIndex(forName: "index1")
            #expect(database.indexes == [])
            #expect(try database.core.dataFile.foreignIndexes() == [])
            #expect(try !explain(database).contains("index1"))
        }
        let reopened = try open(directory)
        defer { try? reopened.close() }
        #expect(reopened.indexes == [])
        try reopened.saveDocument(MutableDocument(id: "added", data: ["firstName": "Zed"]))
        #expect(try ids(reopened, firstName: "Zed") == ["added"])
        try reopened.performMaintenance(type: .integrityCheck)
    }

    @Test func anIndexCouchbaseLiteDeletedIsForgottenOnOpen() throws {
        let directory = try TemporaryDirectory()
        try Fixtures.copy(Self.fixture, into: directory)
        do {
            let database = try open(directory)
            #expect(database.indexes == ["index1"])
            try database.close()
        }
        // What LiteCore's deleteIndex does (SQLiteDataFile::deleteIndex in 2.8).
        try execute(#"DELETE FROM indexes WHERE name='index1'; DROP INDEX IF EXISTS "index1";"#, in: directory)
        let reopened = try open(directory)
        defer { try? reopened.close() }
        #expect(reopened.indexes == [])
        #expect(try ValueIndex.stored(in: reopened.core).isEmpty)
    }

    @Test func anIndexCouchbaseLiteRecreatedWithAnotherDefinitionWins() throws {
        let directory = try TemporaryDirectory()
        try Fixtures.copy(Self.fixture, into: directory)
        do {
            let database = try open(directory)
            try database.close()
        }
        // LiteCore's createIndex with a new definition under the same name records it in
        // `indexes` (and rebuilds its SQL index, which needs `fl_value`, a function this raw
        // connection does not have: only the recorded definition changes here).
        try execute(#"UPDATE indexes SET expression='[[".lastName"]]' WHERE name='index1'"#, in: directory)
        let reopened = try open(directory)
        defer { try? reopened.close() }
        #expect(try ValueIndex.stored(in: reopened.core).map(\.definition) == [#"[[".lastName"]]"#])
        try reopened.saveDocument(MutableDocument(id: "added", data: ["firstName": "Zed", "lastName": "Zulu"]))
        let byLastName = try reopened.createQuery(json: #"{"WHAT":[["._id"]],"WHERE":["=",[".lastName"],"Zulu"]}"#)
        #expect(try byLastName.explain().contains("index \"index1\""))
        #expect(try byLastName.execute().map { $0.string(at: 0) ?? "" } == ["added"])
        try reopened.performMaintenance(type: .integrityCheck)
    }

    @Test func creatingTheSameIndexThroughTheAPIIsANoOpAndAnotherDefinitionIsRefused() throws {
        let directory = try TemporaryDirectory()
        try Fixtures.copy(Self.fixture, into: directory)
        let database = try open(directory)
        defer { try? database.close() }
        try database.createIndex(IndexBuilder.valueIndex(items: ValueIndexItem.property("firstName"),
                                                         ValueIndexItem.property("lastName")), withName: "index1")
        #expect(try ValueIndex.stored(in: database.core).first?.isAdopted == true)
        #expect(errorCode {
            try database.createIndex(IndexBuilder.valueIndex(items: ValueIndexItem.property("lastName")), withName: "index1")
        } == .invalidParameter)
    }
}
