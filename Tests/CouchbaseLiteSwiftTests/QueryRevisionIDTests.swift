import CouchbaseLiteSwift
import Foundation
import Testing
import TestSupport

/// `._revisionID` / `META().revisionID` answer the document's current revision ID, as 2.8 does
/// (it answered MISSING here), in results and in conditions, on both engines, whether the rows
/// come from a scan, a value index or a join.
@Suite(.ownThreads) struct QueryRevisionIDTests {
    @Test(arguments: StorageEngineKind.allCases)
    func revisionIDIsTheCurrentRevision(engine: StorageEngineKind) throws {
        try withDatabase(engine) { database, _ throws in
            try database.saveDocument(MutableDocument(id: "a", data: ["n": 1]))
            let b = MutableDocument(id: "b", data: ["n": 2])
            try database.saveDocument(b)
            let second = try #require(database.document(withID: "b")).toMutable()
            second.setInt(3, forKey: "n")
            try database.saveDocument(second)
            let revisions = try ["a", "b"].map { try #require(database.document(withID: $0)?.revisionID) }
            #expect(revisions[1].hasPrefix("2-"))

            let json = try database.createQuery(json: #"{"WHAT": [["._id"], ["._revisionID"]], "ORDER_BY": [["._id"]]}"#)
                .execute().map { $0.string(at: 1) }
            #expect(json == revisions)
            let sql = try database.createQuery("SELECT META().id, META().revisionID FROM _ ORDER BY META().id")
                .execute().map { $0.string(at: 1) }
            #expect(sql == revisions)
            let named = try database.createQuery("SELECT META().revisionID FROM _ WHERE META().id = 'a'").execute()
                .allResults().first?.string(forKey: "revisionID")
            #expect(named == revisions[0])
            let matching = try database.createQuery(json: #"{"WHAT": [["._id"]], "WHERE": ["LIKE", ["._revisionID"], "2-%"]}"#)
                .execute().map { $0.string(at: 0) }
            #expect(matching == ["b"])

            // Through a value index and a join as well.
            try database.createIndex(IndexBuilder.valueIndex(items: ValueIndexItem.property("n")), withName: "byN")
            let indexed = try database.createQuery(json: #"{"WHAT": [["._revisionID"]], "WHERE": ["=", [".n"], 3]}"#)
                .execute().map { $0.string(at: 0) }
            #expect(indexed == [revisions[1]])
            let joined = try database.createQuery(json:
                #"{"WHAT": [[".other._revisionID"]], "FROM": [{"AS": "main"}, {"AS": "other", "ON": ["=", [".main.n"], [".other.n"]]}],"#
                    + #" "WHERE": ["=", [".main._id"], "a"]}"#).execute().map { $0.string(at: 0) }
            #expect(joined == [revisions[0]])
        }
    }
}
