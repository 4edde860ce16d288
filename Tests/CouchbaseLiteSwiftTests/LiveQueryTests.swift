import CouchbaseLiteSwift
import Dispatch
import Foundation
import LiteSupport
import Testing
import TestSupport

/// Live queries: the first results arrive without a commit, a commit that changes the results
/// is reported once, one that does not is not reported, and a removed listener never fires.
@Suite(.ownThreads) struct LiveQueryTests {
    @Test(arguments: StorageEngineKind.allCases)
    func liveQueriesReportChangedResultsOnly(engine: StorageEngineKind) throws {
        try withDatabase(engine) { database, _ in
            try database.saveDocument(MutableDocument(id: "h1", data: ["type": "hotel", "name": "A"]))
            let query = QueryBuilder.select(SelectResult.expression(Meta.id)).from(DataSource.database(database))
                .where(Expression.property("type").equalTo(Expression.string("hotel")))
            let delivery = DispatchQueue(label: "live-query-test")
            let seen = Locked<[[String]]>([])
            let arrived = DispatchSemaphore(value: 0)
            let token = query.addChangeListener(withQueue: delivery) { change in
                let ids = (change.results?.allResults() ?? []).compactMap { $0.string(at: 0) }
                seen.withLock { $0.append(ids) }
                arrived.signal()
            }
            // The first results, without any commit.
            #expect(waitFor(arrived))
            #expect(seen.withLock { $0 } == [["h1"]])

            // An unrelated commit, then a relevant one: only the relevant one is reported.
            try database.saveDocument(MutableDocument(id: "a1", data: ["type": "airline"]))
            try database.saveDocument(MutableDocument(id: "h2", data: ["type": "hotel", "name": "B"]))
            #expect(waitFor(arrived))
            delivery.sync {}
            #expect(seen.withLock { $0 } == [["h1"], ["h1", "h2"]])

            // After removal, nothing more arrives.
            query.removeChangeListener(withToken: token)
            let before = seen.withLock { $0.count }
            try database.saveDocument(MutableDocument(id: "h3", data: ["type": "hotel"]))
            try database.purgeDocument(withID: "h1")
            delivery.sync {}
            #expect(seen.withLock { $0.count } == before)
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func anAsyncSequenceOfResults(engine: StorageEngineKind) async throws {
        let directory = try TemporaryDirectory()
        let database = try Database(name: "live", config: engine.config(in: directory))
        defer { try? database.close() }
        let query = QueryBuilder.select(SelectResult.expression(Function.count(Expression.all())))
            .from(DataSource.database(database))
        var counts: [Int] = []
        for await change in query.changes() {
            counts.append(change.results?.next()?.int(at: 0) ?? -1)
            if counts.count == 1 { try database.saveDocument(MutableDocument(id: "one")) }
            if counts.count == 2 { break }
        }
        #expect(counts == [0, 1])
    }
}

/// A burst of commits (coalesced into fewer runs when they come faster than the query runs):
/// the listener hears results that only move forward and end in the final ones.
@Suite(.ownThreads) struct LiveQueryBurstTests {
    @Test(arguments: StorageEngineKind.allCases)
    func aBurstOfCommitsEndsInTheFinalResults(engine: StorageEngineKind) throws {
        try withDatabase(engine) { database, _ in
            let query = QueryBuilder.select(SelectResult.expression(Function.count(Expression.all())))
                .from(DataSource.database(database))
            let delivery = DispatchQueue(label: "live-query-burst")
            let counts = Locked<[Int]>([])
            let reachedFinal = DispatchSemaphore(value: 0)
            let first = DispatchSemaphore(value: 0)
            let token = query.addChangeListener(withQueue: delivery) { change in
                let count = change.results?.next()?.int(at: 0) ?? -1
                counts.withLock { $0.append(count) }
                if count == 0 { first.signal() }
                if count == 200 { reachedFinal.signal() }
            }
            #expect(waitFor(first))
            for number in 0..<200 { try database.saveDocument(MutableDocument(id: "d\(number)")) }
            #expect(waitFor(reachedFinal))
            query.removeChangeListener(withToken: token)
            delivery.sync {}
            let heard = counts.withLock { $0 }
            #expect(heard.first == 0 && heard.last == 200)
            #expect(heard == heard.sorted(), "results only move forward")
        }
    }
}
