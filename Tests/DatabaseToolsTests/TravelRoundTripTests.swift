import CouchbaseLiteSwift
import DatabaseTools
import Fleece
import Foundation
import Testing
import TestSupport

/// The acceptance round trip, run through the built executables: import the travel data set
/// into SQLite, convert to RocksDB, back to SQLite, export.
@Suite(.ownThreads) struct TravelRoundTripTests {
    static let files = ["travel.airlines.jsonl", "travel.hotels.jsonl", "travel.routes.jsonl", "travel-sg.json"]

    /// A JSON object as canonical JSON (sorted keys, numbers as IEEE doubles in shortest form),
    /// with its `_id`. (Foundation's parser reads long numbers as decimals, which compare unequal
    /// to the same doubles, so it cannot judge equality here.)
    private func canonical(_ line: Substring) throws -> (id: String, json: String) {
        let document = try FleeceDocument(json: String(line))
        let id = try #require(document.root.dictionary?["_id"]?.string)
        return (id, document.root.json(canonical: true))
    }

    /// Every input object by `_id`.
    private func inputDocuments() throws -> [String: String] {
        var documents: [String: String] = [:]
        for file in Self.files {
            let text = try String(contentsOf: try Fixtures.url("travel/\(file)"), encoding: .utf8)
            for line in text.split(separator: "\n") where !line.isEmpty {
                let (id, json) = try canonical(line)
                documents[id] = json
            }
        }
        return documents
    }

    @Test func travelDataSurvivesSQLiteToRocksDBToSQLite() throws {
        try withTemporaryDirectory { directory in
            let first = directory.appending("first.cblite2").path
            for file in Self.files {
                let result = try ToolRunner.cblite("import", first, try Fixtures.url("travel/\(file)").path, "--quiet")
                #expect(result.status == 0, "\(result.stderr)")
            }
            // A blob too, so the blob store takes part in the round trip.
            let config = DatabaseConfiguration()
            config.directory = directory.path
            let database = try Database(name: "first", config: config)
            let document = MutableDocument(id: "logo")
            document.setValue(Blob(contentType: "image/png", data: Data(repeating: 7, count: 5_000)), forKey: "logo")
            try database.saveDocument(document)
            try database.close()

            let middle = directory.appending("middle.cblite2").path
            let last = directory.appending("last.cblite2").path
            let toRocks = try ToolRunner.convert(first, middle, "--engine", "rocksdb", "--verify", "--quiet")
            #expect(toRocks.status == 0, "\(toRocks.stderr)")
            let back = try ToolRunner.convert(middle, last, "--engine", "sqlite", "--verify", "--quiet")
            #expect(back.status == 0, "\(back.stderr)")
            #expect(try DatabaseLocation(path: middle).engine?.name == "RocksDB")

            let export = directory.appending("export.jsonl")
            #expect(try ToolRunner.cblite("export", last, export.path).status == 0)
            var exported: [String: String] = [:]
            for line in try String(contentsOf: export, encoding: .utf8).split(separator: "\n") {
                let (id, json) = try canonical(line)
                exported[id] = json
            }
            #expect(exported.removeValue(forKey: "logo")?.contains("\"@type\":\"blob\"") == true)
            let input = try inputDocuments()
            #expect(input.count == 5_050)
            #expect(exported.count == input.count)
            let differing = input.keys.filter { exported[$0] != input[$0] }.sorted()
            #expect(differing.isEmpty, "\(differing.count) differ, e.g. \(differing.first.map { "\(input[$0] ?? "") vs \(exported[$0] ?? "missing")" } ?? "")")

            // Every record (rev trees, sequences, flags) and every blob byte-identical to the first.
            let firstLocation = try DatabaseLocation(path: first)
            let lastLocation = try DatabaseLocation(path: last)
            #expect(try RichDatabase.contents(lastLocation) == RichDatabase.contents(firstLocation))
            let firstBlobs = try FolderSnapshot(URL(fileURLWithPath: firstLocation.bundle.attachmentsPath))
            #expect(firstBlobs.files.count == 1)
            #expect(try FolderSnapshot(URL(fileURLWithPath: lastLocation.bundle.attachmentsPath)) == firstBlobs)
        }
    }
}
