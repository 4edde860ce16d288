import CouchbaseLiteSwift
import Foundation
import Testing
import TestSupport

/// A query object run again reuses its last plan only while its parameters and the file's
/// indexes are the same: after an index is deleted, replaced by one on another property, or
/// created, and after its parameters change, each run gives the rows a full scan gives. Both
/// engines.
@Suite(.ownThreads) struct QueryPlanReuseTests {
    @Test(arguments: StorageEngineKind.allCases)
    func aRunAfterIndexesOrParametersChangeReadsAsAScanDoes(engine: StorageEngineKind) throws {
        try withDatabase(engine) { database, _ in
            try database.inBatch {
                for number in 0..<60 {
                    try saved(database, String(format: "d%02d", number),
                              ["country": ["France", "Spain", "Italy"][number % 3], "city": "c\(number % 7)", "n": number])
                }
            }
            let indexed = try database.createQuery(
                json: #"{"WHAT":[["._id"]],"WHERE":["AND",["=",[".country"],["$","country"]],[">=",[".n"],["$","low"]]]}"#)
            let scanned = try database.createQuery(
                json: #"{"WHAT":[["._id"]],"WHERE":["NOT",["NOT",["AND",["=",[".country"],["$","country"]],[">=",[".n"],["$","low"]]]]]}"#)
            func check(_ country: String, _ low: Int, _ step: String) throws {
                for query in [indexed, scanned] {
                    query.parameters = Parameters().setString(country, forName: "country").setInt(low, forName: "low")
                }
                let expected = try scanned.execute().map { $0.string(at: 0) ?? "" }
                #expect(!expected.isEmpty, "\(step)")
                // Twice: the second run is the one that could reuse the first's plan.
                for _ in 0..<2 {
                    #expect(try indexed.execute().map { $0.string(at: 0) ?? "" } == expected, "\(step)")
                }
            }
            try check("France", 10, "no index")
            try database.createIndex(IndexBuilder.valueIndex(items: ValueIndexItem.property("country")), withName: "byKey")
            #expect(try indexed.explain().contains("byKey"))
            try check("France", 10, "index on country")
            try check("Spain", 30, "new parameters")
            try database.deleteIndex(forName: "byKey")
            try check("Spain", 30, "index deleted")
            // The same name on another property: the old plan's index and bounds no longer hold.
            try database.createIndex(IndexBuilder.valueIndex(items: ValueIndexItem.property("n")), withName: "byKey")
            try check("Italy", 20, "same name, other property")
            try database.createIndex(IndexBuilder.valueIndex(items: ValueIndexItem.property("country")), withName: "byCountry")
            try check("Italy", 20, "a second index")
            // Documents written after a run are read by the next one.
            try saved(database, "z99", ["country": "Italy", "city": "c1", "n": 99])
            try check("Italy", 20, "a new document")
            #expect(try indexed.execute().map { $0.string(at: 0) ?? "" }.contains("z99"))
        }
    }
}
