import CSQLite
import DatabaseTools
import Foundation
import LiteDatabase
import LiteStorage
import Testing
import TestSupport

/// Real Couchbase Lite files hold tables besides key stores (2.0's `kv_fts_map`, 2.8's
/// `indexes`, SQL expression indexes): they are never taken for key stores, and their index
/// definitions travel with a conversion.
@Suite(.ownThreads) struct LiteCoreTablesTests {
    /// Runs SQL on a bundle's `db.sqlite3` with the raw SQLite API (as another program would).
    private func execute(_ sql: String, in bundle: URL) throws {
        var handle: OpaquePointer?
        let path = bundle.appendingPathComponent("db.sqlite3").path
        guard sqlite3_open(path, &handle) == SQLITE_OK else { throw StorageError(.ioError, "cannot open \(path)") }
        defer { sqlite3_close(handle) }
        var message: UnsafeMutablePointer<CChar>?
        guard sqlite3_exec(handle, sql, nil, nil, &message) == SQLITE_OK else {
            defer { sqlite3_free(message) }
            throw StorageError(.unexpectedError, message.map { String(cString: $0) } ?? "SQL failed")
        }
    }

    private func realDatabase(_ fixture: String, in directory: TemporaryDirectory) throws -> URL {
        let bundle = try Fixtures.copy(fixture, into: directory)
        try makeWritable(bundle)
        return bundle
    }

    /// Converts `source` to RocksDB and back, verifying both copies; returns the two copies.
    private func roundTrip(_ source: URL, in directory: TemporaryDirectory) throws -> (DatabaseLocation, DatabaseLocation) {
        let original = try DatabaseLocation(path: source.path)
        let rocks = try DatabaseLocation(path: directory.appending("rocks.cblite2").path)
        let back = try DatabaseLocation(path: directory.appending("back.cblite2").path)
        try EngineConverter.convert(source: original, destination: rocks, options: .init(verify: true))
        try EngineConverter.convert(source: rocks, destination: back, options: .init(verify: true))
        // The copies also carry the index definitions, compared separately, and adopt (build)
        // LiteCore's value indexes as ours, which the original, opened read-only, never did.
        let data = { (location: DatabaseLocation) in
            try RichDatabase.contents(location).filter {
                $0.key != "bk:" + ForeignIndex.carrierStoreName && !$0.key.hasPrefix("bk:value:")
            }
        }
        #expect(try data(rocks) == data(original))
        #expect(try data(back) == data(original))
        return (rocks, back)
    }

    @Test(arguments: [false, true])
    func aCouchbaseLite20FileWithAnFTSMapConvertsToRocksDBAndBack(withRows: Bool) throws {
        try withTemporaryDirectory { directory in
            let bundle = try realDatabase("v2/android200-sqlite/android-sqlite.cblite2", in: directory)
            var sql = "CREATE TABLE kv_fts_map (alias TEXT PRIMARY KEY, expression TEXT) WITHOUT ROWID;"
            if withRows { sql += #"INSERT INTO kv_fts_map VALUES ('kv_default::byKey', '[".key"]');"# }
            try execute(sql, in: bundle)

            let file = try DataFileOpener.open(try DatabaseLocation(path: bundle.path), readOnly: true)
            #expect(try file.keyStoreNames() == ["default", "info"])
            #expect(throws: StorageError.self) { try file.keyStore("fts_map") }
            try file.close()

            let (rocks, back) = try roundTrip(bundle, in: directory)
            let carried = try DataFileOpener.open(back, readOnly: true)
            defer { try? carried.close() }
            if withRows {
                #expect(try carried.foreignIndexes() == [ForeignIndex(name: "byKey", kind: .fullText, keyStore: "default",
                                                                      expression: #"[".key"]"#)])
            } else {
                #expect(try carried.foreignIndexes().isEmpty)
            }
            let documents = try rocks.open(.readOnly)
            defer { try? documents.close() }
            #expect(try documents.documentCount() == 2)
        }
    }

    @Test func aCouchbaseLite28FileWithAValueIndexConvertsAndCarriesTheDefinition() throws {
        try withTemporaryDirectory { directory in
            let bundle = try realDatabase("v2/upgrade_2.8_index.cblite2", in: directory)
            let source = try DataFileOpener.open(try DatabaseLocation(path: bundle.path), readOnly: true)
            let declared = try source.foreignIndexes()
            try source.close()
            #expect(declared.map(\.name) == ["index1"])
            #expect(declared.first?.expression == #"[[".firstName"],[".lastName"]]"#)
            #expect(declared.first?.sql?.contains("fl_value(body, 'firstName')") == true)

            let (rocks, back) = try roundTrip(bundle, in: directory)
            for copy in [rocks, back] {
                let file = try DataFileOpener.open(copy, readOnly: true)
                defer { try? file.close() }
                let carried = try file.foreignIndexes()
                #expect(carried.map(\.name) == ["index1"])
                #expect(carried.first?.expression == declared.first?.expression)
                #expect(carried.first?.kind == .value)
                #expect(try file.keyStoreNames() == ["default", "info"])
            }
        }
    }
}
