import CouchbaseLiteSwift
import Foundation
import Testing
import TestSupport

/// "Full-Text Search": a full-text index on the tasks' names, queried with `match`, on both
/// engines; then the same search ordered by rank.
@Suite(.ownThreads) struct FullTextSearchExamples {
    @Test(arguments: StorageEngineKind.allCases)
    func theGuidesTasksAreFoundByAWord(engine: StorageEngineKind) throws {
        try withTemporaryDirectory { directory in
            let database = try Database(name: "tasks", config: engine.config(in: directory))
            defer { try? database.close() }   // allowed: closing after the test

            // tag::fts-index[]
            // Insert documents
            let tasks = ["buy groceries", "play chess", "book travels", "buy museum tickets"]
            for task in tasks {
                let doc = MutableDocument()
                doc.setString("task", forKey: "type")
                doc.setString(task, forKey: "name")
                try database.saveDocument(doc)
            }

            // Create index
            do {
                let index = Index.fullTextIndex(withItems: [FullTextIndexItem.property("name")]).ignoreAccents(false)
                try database.createIndex(index, withName: "nameFTSIndex")
            } catch let error {
                print(error.localizedDescription)
            }
            // end::fts-index[]

            #expect(database.indexes == ["nameFTSIndex"])
            // tag::fts-query[]
            let whereClause = FullTextExpression.index("nameFTSIndex").match("'buy'")
            let query = QueryBuilder.select(SelectResult.expression(Meta.id))
                .from(DataSource.database(database))
                .where(whereClause)

            do {
                for result in try query.execute() {
                    print("document id \(result.string(at: 0)!)")
                }
            } catch let error {
                print(error.localizedDescription)
            }
            // end::fts-query[]

            let found = try query.execute().map { $0.string(at: 0) ?? "" }
            let names = Set(found.compactMap { database.document(withID: $0)?.string(forKey: "name") })
            #expect(names == ["buy groceries", "buy museum tickets"])

            // tag::fts-rank[]
            let ranked = QueryBuilder.select(SelectResult.expression(Meta.id),
                                             SelectResult.property("name"))
                .from(DataSource.database(database))
                .where(FullTextExpression.index("nameFTSIndex").match("buy OR chess"))
                .orderBy(Ordering.expression(FullTextFunction.rank("nameFTSIndex")).descending())
            for result in try ranked.execute() {
                print(result.string(forKey: "name") ?? "")
            }
            // end::fts-rank[]
            #expect(try ranked.execute().allResults().count == 3)
        }
    }
}
