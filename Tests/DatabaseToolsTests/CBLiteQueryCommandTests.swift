import DatabaseTools
import Foundation
import Testing
import TestSupport

/// `cblite query`, `index`, `indexes`, `drop-index` on the travel data, both engines.
@Suite(.ownThreads) struct CBLiteQueryCommandTests {
    private func travel(_ engine: StorageEngineKind, in directory: TemporaryDirectory) throws -> String {
        let input = directory.appending("travel.jsonl").path
        var data = Data()
        for name in ["travel.airlines.jsonl", "travel.hotels.jsonl", "travel.routes.jsonl"] {
            data += try Fixtures.data("travel/\(name)")
        }
        try data.write(to: URL(fileURLWithPath: input))
        let db = directory.appending("travel.cblite2").path
        let imported = try ToolRunner.cblite("import", db, input, "--quiet", "--engine", engine.rawValue)
        #expect(imported.status == 0, "\(imported.stderr)")
        return db
    }

    /// `cblite query DB -`: the batch the differential against 2.8 feeds (Tools/interop).
    @Test(arguments: StorageEngineKind.allCases)
    func aBatchOnStandardInputAnswersEachQuery(engine: StorageEngineKind) throws {
        try withTemporaryDirectory { directory in
            let db = try travel(engine, in: directory)
            let batch = #"""
                {"n":"40-Mile Air"}
                {"WHAT":[["._id"],[".missing"],null],"WHERE":["=",[".name"],["$n"]]}
                {}
                {"WHAT":[["NO_SUCH()"]]}
                {}
                {"WHAT":[["COUNT()",["."]]],"WHERE":["=",[".collection"],"airlines"]}

                """#
            let result = try ToolRunner.cblite("query", db, "-", input: Data(batch.utf8))
            #expect(result.status == 0, "\(result.stderr)")
            let lines = result.output.split(separator: "\n").map(String.init)
            #expect(lines.count == 5)
            #expect(lines.first == #"{"0":"airline_1","2":null}"#)
            #expect(lines.dropFirst().first == "#ok")
            #expect(lines.dropFirst(2).first?.hasPrefix("#error ") == true)
            #expect(Array(lines.suffix(2)) == [#"{"0":150}"#, "#ok"])
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func queriesPrintOneJSONRowPerLine(engine: StorageEngineKind) throws {
        try withTemporaryDirectory { directory in
            let db = try travel(engine, in: directory)
            let sql = try ToolRunner.cblite("query", db, "SELECT collection, COUNT(*) AS n FROM _ GROUP BY collection ORDER BY n DESC")
            #expect(sql.status == 0, "\(sql.stderr)")
            #expect(sql.output == "[\"routes\",3000]\n[\"hotels\",350]\n[\"airlines\",150]\n")
            let json = try ToolRunner.cblite("query", db, #"{"WHAT":[["._id"],[".missing"]],"WHERE":["=",[".name"],"40-Mile Air"]}"#)
            #expect(json.output == "[\"airline_1\",null]\n")
            let objects = try ToolRunner.cblite("query", db, #"{"WHAT":[["._id"],[".missing"]],"WHERE":["=",[".name"],"40-Mile Air"]}"#, "--objects")
            #expect(objects.output == "{\"id\":\"airline_1\"}\n")
            let parameters = try ToolRunner.cblite("query", db, "SELECT name FROM _ WHERE country = $c AND collection = 'airlines' ORDER BY name",
                                                   "--params", #"{"c":"France"}"#, "--limit", "2")
            #expect(parameters.output.split(separator: "\n").count == 2)
            let bad = try ToolRunner.cblite("query", db, "SELECT name FROM _ WHERE")
            #expect(bad.status != 0)
            #expect(bad.stderr.contains("character 25"))
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func fullTextIndexesThroughTheTool(engine: StorageEngineKind) throws {
        try withTemporaryDirectory { directory in
            let db = try travel(engine, in: directory)
            let created = try ToolRunner.cblite("index", db, "desc", #"["description"]"#, "--fts", "--language", "en")
            #expect(created.status == 0, "\(created.stderr)")
            #expect(try ToolRunner.cblite("indexes", db).output == "desc\tfull-text\n")
            let hits = try ToolRunner.cblite("query", db, #"{"WHAT":[["._id"]],"WHERE":["MATCH()","desc","pool"]}"#)
            #expect(hits.status == 0, "\(hits.stderr)")
            #expect(!hits.output.isEmpty)
            // A document put through the tool is indexed at once.
            let put = try ToolRunner.cblite("put", db, "new", #"{"description":"a zyxwvut lodge"}"#)
            #expect(put.status == 0)
            #expect(try ToolRunner.cblite("query", db, #"{"WHAT":[["._id"]],"WHERE":["MATCH()","desc","zyxwvut"]}"#).output == "[\"new\"]\n")
            #expect(try ToolRunner.cblite("drop-index", db, "desc").status == 0)
            #expect(try ToolRunner.cblite("indexes", db).output == "")
            #expect(try ToolRunner.cblite("drop-index", db, "desc").status != 0)
        }
    }
}
