import CouchbaseLiteSwift
import Foundation
import Testing
import TestSupport

/// `FullTextFunction.matchOffsets` gives the matched words' byte ranges for highlighting — the
/// ones LiteCore's c4QueryTest "FTS single property" expects on `query/names_100.json`.
@Suite(.ownThreads) struct FullTextMatchOffsetsTests {
    /// LiteCore's expectation: (document, start, length) of "Hwy" in contact.address.street.
    private static let expected: [String: [Int]] = [
        "0000013": [10, 3], "0000015": [11, 3], "0000043": [12, 3], "0000044": [12, 3], "0000052": [11, 3],
    ]

    @Test(arguments: StorageEngineKind.allCases)
    func offsetsAreTheMatchedWordsBytes(engine: StorageEngineKind) throws {
        try withDatabase(engine) { database, _ in
            let lines = String(decoding: try Fixtures.data("query/names_100.json"), as: UTF8.self)
                .split(separator: "\n").filter { !$0.isEmpty }
            try database.inBatch {
                for (index, line) in lines.enumerated() {
                    try database.saveDocument(try MutableDocument(id: String(format: "%07d", index + 1), json: String(line)))
                }
            }
            try database.createIndex(IndexBuilder.fullTextIndex(items: FullTextIndexItem.property("contact.address.street"))
                .language(nil), withName: "byStreet")
            let builder = try QueryBuilder.select(SelectResult.expression(Meta.id),
                                                  SelectResult.expression(FullTextFunction.matchOffsets("byStreet")))
                .from(DataSource.database(database)).where(FullTextExpression.index("byStreet").match("Hwy"))
                .execute().allResults()
            let sql = try database.createQuery(
                "SELECT META().id, MATCH_OFFSETS(byStreet) FROM _ WHERE MATCH(byStreet, 'Hwy')").execute().allResults()
            for rows in [builder, sql] {
                var found: [String: [Int]] = [:]
                for row in rows {
                    let offsets = try #require(row.value(at: 1) as? ArrayObject)
                    #expect(offsets.count == 1)
                    let first = try #require(offsets.dictionary(at: 0))
                    #expect(first.string(forKey: "property") == "contact.address.street")
                    found[row.string(at: 0) ?? ""] = [first.int(forKey: "start"), first.int(forKey: "length")]
                }
                #expect(found == Self.expected)
            }
            // Without a MATCH on that index, there are no offsets to give.
            let unmatched = #expect(throws: CouchbaseLiteError.self) {
                _ = try database.createQuery("SELECT MATCH_OFFSETS(byStreet) FROM _").execute().allResults()
            }
            #expect(unmatched?.code == .invalidQuery)
        }
    }
}
