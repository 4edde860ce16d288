import CouchbaseLiteSwift
import DatabaseTools
import Foundation
import LiteDatabase
import LiteStorage
import Testing
import TestSupport
@testable import SQLiteStorage

/// A file in which the real Couchbase Lite 2.8 made a full-text index (an FTS4 table with
/// LiteCore's `unicodesn` tokenizer, fed by triggers): it opens, our index is built beside it
/// with the same definition and answers as Couchbase Lite did, saves keep the FTS4 table
/// consistent, and it converts to RocksDB and back with the index definition.
@Suite(.ownThreads) struct LiteCoreFullTextFileTests {
    private static let fixture = "v2/sentences-fts4-2.8.cblite2"
    private static let ftsTable = "\"kv_default::sentenceFTS\""

    /// Couchbase Lite 2.8's answers on the fixture (`cblite query --raw` with
    /// `["MATCH", "sentenceFTS", text]`, ordered by ID), recorded from the real build.
    private static let realAnswers: [String: [String]] = [
        "London": ["0000001", "0000002"], "rain": ["0000001", "0000006", "0000031"], "torrent": ["0000001"],
        "\"dark and stormy\"": ["0000001"], "Dummie woman": ["0000034", "0000036"], "lond*": ["0000001", "0000002"],
        "night NEAR/3 dark": ["0000001"], "house NOT rain": ["0000003", "0000005"], "thrust": ["0000006"],
        // Its positions count kept words only: "dark and stormy", "fell in torrents".
        "dark NEAR/0 stormy": ["0000001"], "\"dark stormy\"": ["0000001"], "fell NEAR/0 torrents": ["0000001"],
        "\"house of a description\"": ["0000003"],
    ]

    private func openCopy(_ directory: TemporaryDirectory, copying: Bool = true) throws -> Database {
        if copying { try Fixtures.copy(Self.fixture, into: directory) }
        let config = DatabaseConfiguration()
        config.directory = directory.path
        return try Database(name: "sentences-fts4-2.8", config: config)
    }

    private func matches(_ database: Database, _ text: String) throws -> [String] {
        try QueryBuilder.select(SelectResult.expression(Meta.id)).from(DataSource.database(database))
            .where(FullTextExpression.index("sentenceFTS").match(text))
            .orderBy(Ordering.expression(Meta.id)).execute().map { $0.string(at: 0) ?? "" }
    }

    /// FTS4's own check: re-tokenizes every row with the registered tokenizer and compares with
    /// the stored index. On rows Couchbase Lite indexed, it passes only if our `unicodesn`
    /// gives exactly the terms, positions and columns LiteCore's did.
    private func fts4IntegrityCheck(_ core: DatabaseCore) throws {
        let file = try #require(core.dataFile as? SQLiteDataFile)
        try file.write { txn in
            try file.withWriter(txn) { connection in
                try connection.execute("INSERT INTO \(Self.ftsTable)(\(Self.ftsTable)) VALUES('integrity-check')")
            }
        }
    }

    @Test func ourUnicodeSNTokenizerReproducesCouchbaseLitesFTS4Index() throws {
        try withTemporaryDirectory { directory in
            let bundle = try Fixtures.copy(Self.fixture, into: directory)
            let core = try DatabaseLocation(path: bundle.path).open(.readWrite)
            defer { try? core.close() }   // allowed: closing after the test
            try fts4IntegrityCheck(core)
        }
    }

    @Test func theIndexIsAdoptedAndAnswersAsCouchbaseLite28Did() throws {
        try withTemporaryDirectory { directory in
            let database = try openCopy(directory)
            defer { try? database.close() }   // allowed: closing after the test
            #expect(database.indexes == ["sentenceFTS"])
            for (text, expected) in Self.realAnswers {
                #expect(try matches(database, text) == expected, "\(text)")
            }
        }
    }

    @Test func savesUpdatesAndDeletesKeepTheFTS4TableConsistent() throws {
        try withTemporaryDirectory { directory in
            let database = try openCopy(directory)
            try database.saveDocument(MutableDocument(id: "new", data: ["sentence": "A foggy morning in London town"]))
            let first = try #require(database.document(withID: "0000001")?.toMutable())
            first.setString("The rain in Spain stays mainly in the plain", forKey: "sentence")
            try database.saveDocument(first)
            try database.deleteDocument(try #require(database.document(withID: "0000002")))
            try database.purgeDocument(withID: "0000003")
            try database.saveDocument(MutableDocument(id: "number", data: ["sentence": 42]))
            #expect(try matches(database, "London") == ["new"])
            #expect(try matches(database, "Spain") == ["0000001"])
            #expect(try matches(database, "foggy morning") == ["new"])
            try database.close()

            let core = try DatabaseLocation(path: directory.appending("sentences-fts4-2.8.cblite2").path).open(.readWrite)
            defer { try? core.close() }   // allowed: closing after the test
            try fts4IntegrityCheck(core)
            #expect(try core.checkIntegrity() == [])
        }
    }

    @Test func theFileConvertsToRocksDBAndBackWithItsIndex() throws {
        try withTemporaryDirectory { directory in
            let bundle = try Fixtures.copy(Self.fixture, into: directory)
            let original = try DatabaseLocation(path: bundle.path)
            let rocks = try DatabaseLocation(path: directory.appending("rocks.cblite2").path)
            let back = try DatabaseLocation(path: directory.appending("back.cblite2").path)
            try EngineConverter.convert(source: original, destination: rocks, options: .init(verify: true))
            try EngineConverter.convert(source: rocks, destination: back, options: .init(verify: true))

            for (name, engine) in [("rocks", StorageEngine.rocksdb), ("back", StorageEngine.sqlite)] {
                let config = DatabaseConfiguration()
                config.directory = directory.path
                config.storageEngine = engine
                let database = try Database(name: name, config: config)
                defer { try? database.close() }   // allowed: closing after the test
                #expect(database.indexes == ["sentenceFTS"], "\(name)")
                #expect(try matches(database, "London") == ["0000001", "0000002"], "\(name)")
                try database.saveDocument(MutableDocument(id: "new", data: ["sentence": "London calling"]))
                #expect(try matches(database, "London") == ["0000001", "0000002", "new"], "\(name)")
            }
        }
    }

    /// The real Couchbase Lite keeps writing such a file after us, maintaining only its FTS4
    /// table: our index notices (the file's last sequence is beyond what it saw) and rebuilds.
    @Test func writesMadeWithoutOurIndexAreCaughtUpOnOpen() throws {
        try withTemporaryDirectory { directory in
            let database = try openCopy(directory)
            #expect(try matches(database, "thrust") == ["0000006"])
            try database.close()
            try ForeignSave.copyDocument("0000006", as: "elsewhere",
                                         inFileAt: directory.appending("sentences-fts4-2.8.cblite2").path)
            let reopened = try openCopy(directory, copying: false)
            defer { try? reopened.close() }   // allowed: closing after the test
            #expect(try matches(reopened, "thrust") == ["0000006", "elsewhere"])
        }
    }
}
