import DatabaseTools
import Foundation
import LiteStorage
import Testing
import TestSupport

/// The tools on a real Couchbase Lite 2.8 file with a value index (`index1` on firstName,
/// lastName): `cblite info` and `indexes` list it with its definition and who keeps it,
/// `cblite-convert` carries it to the other engine and builds it there (both directions), and
/// queries use it afterwards.
@Suite(.ownThreads) struct IndexAdoptionToolTests {
    private static let definition = #"[[".firstName"],[".lastName"]]"#
    private static let query = #"{"WHAT":[["._id"]],"WHERE":["=",[".firstName"],"Zed"]}"#

    private func fixture(in directory: TemporaryDirectory) throws -> String {
        try Fixtures.copy("v2/upgrade_2.8_index.cblite2", into: directory).path
    }

    @Test func infoAndIndexesListLiteCoresIndexAndThenTheAdoptedOne() throws {
        try withTemporaryDirectory { directory in
            let db = try fixture(in: directory)
            // Read-only commands change nothing: the index is still only Couchbase Lite's.
            #expect(try ToolRunner.cblite("indexes", db).output == "index1\tvalue (Couchbase Lite)\n")
            let before = try ToolRunner.cblite("info", db)
            #expect(before.status == 0, "\(before.stderr)")
            #expect(before.output.contains("index1 (value, Couchbase Lite's): \(Self.definition)"))

            let put = try ToolRunner.cblite("put", db, "added", #"{"firstName":"Zed","lastName":"Zulu"}"#)
            #expect(put.status == 0, "\(put.stderr)")
            #expect(try ToolRunner.cblite("indexes", db).output == "index1\tvalue (adopted from Couchbase Lite)\n")
            #expect(try ToolRunner.cblite("info", db).output.contains("index1 (value, adopted from Couchbase Lite): \(Self.definition)"))
            let json = try ToolRunner.cblite("info", db, "--json")
            #expect(json.output.contains(#""origin":"adopted""#))
            let explained = try ToolRunner.cblite("query", db, Self.query, "--explain")
            #expect(explained.output.contains("index \"index1\""), "\(explained.output)")
            #expect(try ToolRunner.cblite("query", db, Self.query).output == "[\"added\"]\n")
        }
    }

    /// `cblite query` with a `MATCH` on a full-text index only Couchbase Lite has built: it
    /// builds ours (saying so), answers as the real 2.8 tool did on the same file, and after a
    /// write our index missed (as Couchbase Lite's own writes would) it catches up first.
    @Test func aQueryOnCouchbaseLitesFullTextIndexBuildsOursAndAnswers() throws {
        try withTemporaryDirectory { directory in
            let db = try Fixtures.copy("v2/sentences-fts4-2.8.cblite2", into: directory).path
            let query = #"{"WHAT":[["._id"]],"WHERE":["MATCH","sentenceFTS","dark NEAR/0 stormy"]}"#
            let first = try ToolRunner.cblite("query", db, query)
            #expect(first.status == 0, "\(first.stderr)")
            #expect(first.output == "[\"0000001\"]\n")
            #expect(first.stderr.contains("built our copy of Couchbase Lite's full-text index \"sentenceFTS\""))
            let again = try ToolRunner.cblite("query", db, query)
            #expect(again.output == first.output && again.stderr.isEmpty, "\(again.stderr)")

            // Couchbase Lite's save of a copy of 0000006: only its FTS4 table hears of it.
            try ForeignSave.copyDocument("0000006", as: "elsewhere", inFileAt: db)
            let thrust = try ToolRunner.cblite("query", db, #"{"WHAT":[["._id"]],"WHERE":["MATCH","sentenceFTS","thrust"]}"#)
            #expect(thrust.output == "[\"0000006\"]\n[\"elsewhere\"]\n", "\(thrust.stderr)")
        }
    }

    @Test func convertingCarriesTheIndexToRocksDBAndBackAndBuildsIt() throws {
        try withTemporaryDirectory { directory in
            let db = try fixture(in: directory)
            let rocks = directory.appending("rocks.cblite2").path
            let back = directory.appending("back.cblite2").path
            let there = try ToolRunner.convert(db, rocks, "--engine", "rocksdb")
            #expect(there.status == 0, "\(there.stderr)")
            #expect(try ToolRunner.cblite("indexes", rocks).output == "index1\tvalue (adopted from Couchbase Lite)\n")
            #expect(try ToolRunner.cblite("put", rocks, "added", #"{"firstName":"Zed","lastName":"Zulu"}"#).status == 0)
            #expect(try ToolRunner.cblite("query", rocks, Self.query, "--explain").output.contains("index \"index1\""))
            #expect(try ToolRunner.cblite("query", rocks, Self.query).output == "[\"added\"]\n")

            let returned = try ToolRunner.convert(rocks, back, "--engine", "sqlite")
            #expect(returned.status == 0, "\(returned.stderr)")
            #expect(try ToolRunner.cblite("indexes", back).output == "index1\tvalue (adopted from Couchbase Lite)\n")
            // Back in SQLite, LiteCore's own index is there again, as 2.8 writes it, and answers.
            let core = try DatabaseLocation(path: back).open(.readOnly)
            defer { try? core.close() }
            let file = core.dataFile
            let native = try #require(file as? any ForeignIndexHolding)
            #expect(try native.foreignIndexEntries(named: "index1").map(\.recordKey).contains("added"))
            #expect(try file.foreignIndexes().first?.sql
                    == #"CREATE INDEX "index1" ON "kv_default" (fl_value(body, 'firstName'), fl_value(body, 'lastName'))"#)
            #expect(try file.carriedForeignIndexes().isEmpty)
            #expect(try ToolRunner.cblite("query", back, Self.query, "--explain").output.contains("index \"index1\""))
            #expect(try ToolRunner.cblite("query", back, Self.query).output == "[\"added\"]\n")
        }
    }
}
