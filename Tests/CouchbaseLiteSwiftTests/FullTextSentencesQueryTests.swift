import CouchbaseLiteSwift
import Foundation
import Testing
import TestSupport

/// Full-text search through the public API with LiteCore's and the iOS tests' data
/// (`query/sentences.json`), combined with other clauses, and every bad input as a clear
/// `CouchbaseLiteError`.
@Suite(.ownThreads) struct FullTextSentencesQueryTests {
    /// The 36 sentences, IDs `0000001`… by line, and an index `sentence` as the iOS test makes it
    /// (language nil, ignoreAccents false).
    private func withSentences<T>(_ engine: StorageEngineKind, _ body: (Database) throws -> T) throws -> T {
        try withDatabase(engine) { database, _ in
            let lines = String(decoding: try Fixtures.data("query/sentences.json"), as: UTF8.self)
                .split(separator: "\n").filter { !$0.isEmpty }
            try database.inBatch {
                for (index, line) in lines.enumerated() {
                    try database.saveDocument(try MutableDocument(id: String(format: "%07d", index + 1), json: String(line)))
                }
            }
            try database.createIndex(IndexBuilder.fullTextIndex(items: FullTextIndexItem.property("sentence"))
                .language(nil).ignoreAccents(false), withName: "sentence")
            return try body(database)
        }
    }

    /// couchbase-lite-ios 2.8 QueryTest.testWhereMatch: `MATCH(sentence, "'Dummie woman'")`
    /// ordered by rank gives 2 rows.
    @Test(arguments: StorageEngineKind.allCases)
    func theIOSTestsWhereMatchCase(engine: StorageEngineKind) throws {
        try withSentences(engine) { database in
            let rows = try QueryBuilder.select(SelectResult.expression(Meta.id),
                                               SelectResult.expression(FullTextFunction.rank("sentence")))
                .from(DataSource.database(database))
                .where(FullTextExpression.index("sentence").match("'Dummie woman'"))
                .orderBy(Ordering.expression(FullTextFunction.rank("sentence")).descending())
                .execute().allResults()
            #expect(rows.count == 2)
            #expect(Set(rows.compactMap { $0.string(at: 0) }) == ["0000034", "0000036"])   // as Couchbase Lite 2.8 answers
            #expect((rows.first?.double(at: 1) ?? 0) >= (rows.last?.double(at: 1) ?? 0))
        }
    }

    /// MATCH with another WHERE term, ORDER BY, LIMIT, in the JSON syntax and SQL++.
    @Test(arguments: StorageEngineKind.allCases)
    func matchCombinesWithOtherClausesInEveryFrontEnd(engine: StorageEngineKind) throws {
        try withSentences(engine) { database in
            let builder = try QueryBuilder.select(SelectResult.expression(Meta.id)).from(DataSource.database(database))
                .where(FullTextExpression.index("sentence").match("rain OR London")
                    .and(Meta.id.greaterThan(Expression.string("0000001"))))
                .orderBy(Ordering.expression(Meta.id).descending()).limit(Expression.int(2))
                .execute().map { $0.string(at: 0) ?? "" }
            #expect(builder == ["0000031", "0000006"])
            let json = try database.createQuery(json: #"""
                {"WHAT": [["._id"]], "WHERE": ["AND", ["MATCH", "sentence", "rain OR London"], [">", ["._id"], "0000001"]],
                 "ORDER_BY": [["DESC", ["._id"]]], "LIMIT": 2}
                """#).execute().map { $0.string(at: 0) ?? "" }
            #expect(json == builder)
            let sql = try database.createQuery(
                "SELECT META().id FROM _ WHERE MATCH(sentence, 'rain OR London') AND META().id > '0000001' "
                    + "ORDER BY META().id DESC LIMIT 2").execute().map { $0.string(at: 0) ?? "" }
            #expect(sql == builder)
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func badInputIsAClearError(engine: StorageEngineKind) throws {
        try withSentences(engine) { database in
            func run(_ index: String, _ text: String) throws {
                _ = try QueryBuilder.select(SelectResult.expression(Meta.id)).from(DataSource.database(database))
                    .where(FullTextExpression.index(index).match(text)).execute().allResults()
            }
            #expect(errorCode { try run("noSuchIndex", "rain") } == .missingIndex)
            #expect(errorCode { try run("sentence", "(rain OR") } == .invalidQuery)
            #expect(errorCode { try run("sentence", "\"open phrase") } == .invalidQuery)
            // (`NEAR/x` is a word, as in FTS4; an operator with nothing after it is not.)
            #expect(errorCode { try run("sentence", "rain NEAR") } == .invalidQuery)
            // MATCH outside WHERE.
            #expect(errorCode {
                _ = try database.createQuery("SELECT MATCH(sentence, 'rain') FROM _").execute().allResults()
            } == .invalidQuery)
            // An unknown language chosen for a new index.
            #expect(errorCode {
                try database.createIndex(IndexBuilder.fullTextIndex(items: FullTextIndexItem.property("sentence"))
                    .language("klingon"), withName: "klingon")
            } == .invalidParameter)
            #expect(!database.indexes.contains("klingon"))
        }
    }
}
