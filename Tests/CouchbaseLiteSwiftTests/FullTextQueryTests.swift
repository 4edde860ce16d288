import CouchbaseLiteSwift
import Foundation
import Testing
import TestSupport

/// The guide's full-text search through the public API, on the travel hotels, both engines:
/// the index answers exactly as a brute-force word scan of the same texts, stays up to date
/// across saves, reopens and deletes, and orders by rank.
@Suite(.ownThreads) struct FullTextQueryTests {
    private func withHotels<T>(_ engine: StorageEngineKind, _ body: (Database, TemporaryDirectory) throws -> T) throws -> T {
        try withDatabase(engine) { database, directory in
            let lines = String(decoding: try Fixtures.data("travel/travel.hotels.jsonl"), as: UTF8.self)
                .split(separator: "\n").filter { !$0.isEmpty }
            try database.inBatch {
                for (index, line) in lines.enumerated() {
                    try database.saveDocument(try MutableDocument(id: "hotel-\(index)", json: String(line)))
                }
            }
            return try body(database, directory)
        }
    }

    /// The IDs of the hotels whose description contains `word` as a whole word, any case.
    private func bruteForce(_ database: Database, _ word: String) throws -> Set<String> {
        let all = try QueryBuilder.select(SelectResult.expression(Meta.id), SelectResult.property("description"))
            .from(DataSource.database(database)).execute()
        var ids = Set<String>()
        for row in all {
            let words = (row.string(at: 1) ?? "").lowercased()
                .split { !($0.isLetter || $0.isNumber) }.map(String.init)
            if words.contains(word) { ids.insert(row.string(at: 0) ?? "") }
        }
        return ids
    }

    private func matches(_ database: Database, _ text: String) throws -> [String] {
        try QueryBuilder.select(SelectResult.expression(Meta.id)).from(DataSource.database(database))
            .where(FullTextExpression.index("descFTS").match(text))
            .orderBy(Ordering.expression(FullTextFunction.rank("descFTS")).descending())
            .execute().map { $0.string(at: 0) ?? "" }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func matchAgreesWithAWordScanAndFollowsChanges(engine: StorageEngineKind) throws {
        try withHotels(engine) { database, directory in
            let index = IndexBuilder.fullTextIndex(items: FullTextIndexItem.property("description"))
                .language(nil).ignoreAccents(false)
            try database.createIndex(index, withName: "descFTS")
            #expect(database.indexes.contains("descFTS"))
            for word in ["pool", "beach", "restaurant", "parking", "london"] {
                let found = try matches(database, word)
                #expect(Set(found) == (try bruteForce(database, word)), "\(word)")
                #expect(found.count == Set(found).count)
            }
            #expect(!(try matches(database, "pool")).isEmpty)

            // A new document is found at once; a deleted one is gone.
            try database.saveDocument(MutableDocument(id: "new-hotel", data: ["description": "A zyxwvut pool"]))
            #expect(try matches(database, "zyxwvut") == ["new-hotel"])
            try database.deleteDocument(try #require(database.document(withID: "new-hotel")))
            #expect(try matches(database, "zyxwvut").isEmpty)

            // Reopened, the index is still kept up to date.
            let config = engine.config(in: directory)
            try database.close()
            let reopened = try Database(name: "test", config: config)
            defer { try? reopened.close() }
            try reopened.saveDocument(MutableDocument(id: "later", data: ["description": "qwertyuiop lodge"]))
            #expect(try matches(reopened, "qwertyuiop") == ["later"])
            #expect(Set(try matches(reopened, "pool")) == (try bruteForce(reopened, "pool")))

            try reopened.deleteIndex(forName: "descFTS")
            #expect(!reopened.indexes.contains("descFTS"))
            #expect(errorCode { _ = try matches(reopened, "pool") } == .missingIndex)
        }
    }

    /// The 2.0 guide's spelling, English stemming, and rank order (more and rarer matches first).
    @Test(arguments: StorageEngineKind.allCases)
    func theGuidesSpellingWithStemmingAndRank(engine: StorageEngineKind) throws {
        try withDatabase(engine) { database, _ in
            try database.saveDocument(MutableDocument(id: "one", data: ["name": "a quiet room near the station"]))
            try database.saveDocument(MutableDocument(id: "two", data: ["name": "rooms, rooms and more rooms"]))
            try database.saveDocument(MutableDocument(id: "none", data: ["name": "a garden"]))
            try database.createIndex(Index.fullTextIndex(withItems: [FullTextIndexItem.property("name")]).language("en"),
                                     withName: "nameFTSIndex")
            let query = QueryBuilder.select(SelectResult.expression(Meta.id),
                                            SelectResult.expression(FullTextFunction.rank("nameFTSIndex")))
                .from(DataSource.database(database))
                .where(FullTextExpression.index("nameFTSIndex").match("room"))
                .orderBy(Ordering.expression(FullTextFunction.rank("nameFTSIndex")).descending())
            let rows = try query.execute().allResults()
            #expect(rows.map { $0.string(at: 0) } == ["two", "one"])
            #expect((rows.first?.double(at: 1) ?? 0) > (rows.last?.double(at: 1) ?? 0))
            let sql = try database.createQuery(
                "SELECT META().id, RANK(nameFTSIndex) FROM _ WHERE MATCH(nameFTSIndex, 'room') ORDER BY RANK(nameFTSIndex) DESC")
            #expect(try sql.execute().map { $0.string(at: 0) } == ["two", "one"])
        }
    }

    /// A `MATCH()` ANDed into WHERE drives the query: only its hits are read (explain says so),
    /// and the rows are exactly those of the same condition hidden from the planner
    /// (`NOT NOT MATCH`, which scans every document).
    @Test(arguments: StorageEngineKind.allCases)
    func aMatchInWhereReadsOnlyItsHits(engine: StorageEngineKind) throws {
        try withHotels(engine) { database, _ in
            try database.createIndex(IndexBuilder.fullTextIndex(items: FullTextIndexItem.property("description")).language("en"),
                                     withName: "descFTS")
            for (text, other) in [("pool", #"["=", 1, 1]"#), ("beach OR garden", #"["=", [".country"], "France"]"#),
                                  (#"\"swimming pool\""#, #"[">", [".id"], 10000]"#), ("zyxwvut", #"["=", 1, 1]"#)] {
                let match = #"["MATCH()", "descFTS", "\#(text)"]"#
                func json(_ condition: String) -> String {
                    #"{"WHAT": [["._id"], ["RANK()", "descFTS"]], "WHERE": ["AND", \#(condition), \#(other)], "#
                        + #""ORDER_BY": [["DESC", ["RANK()", "descFTS"]], ["._id"]]}"#
                }
                let driven = try database.createQuery(json: json(match))
                #expect(try driven.explain().contains("full-text index \"descFTS\""), "\(text)")
                let scanned = try database.createQuery(json: json(#"["NOT", ["NOT", \#(match)]]"#))
                #expect(try scanned.explain().contains("full scan"))
                let rows = try driven.execute().map { [$0.string(at: 0) ?? "", String($0.double(at: 1))] }
                #expect(rows == (try scanned.execute().map { [$0.string(at: 0) ?? "", String($0.double(at: 1))] }), "\(text)")
                if text == "pool" { #expect(!rows.isEmpty) }
            }
        }
    }
}
