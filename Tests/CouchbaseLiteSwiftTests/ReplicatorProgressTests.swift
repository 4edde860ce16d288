import CouchbaseLiteSwift
import Foundation
import LiteSupport
import Testing
import TestSupport

/// Progress-only statuses are coalesced (a listener gets the newest of those that arrived
/// while one was queued); what listeners see must still be in order, end with exactly one
/// `.stopped` carrying the final counts, and never go backwards.
@Suite(.ownThreads) struct ReplicatorProgressTests {
    @Test(arguments: enginePairs.indices)
    func listenersSeeOrderedProgressEndingInOneFinalStoppedStatus(pair: Int) async throws {
        try await withTwoDatabases(enginePairs[pair]) { source, target, _ in
            try source.inBatch {
                for index in 1...300 { try source.saveDocument(MutableDocument(id: "doc-\(index)", data: ["n": index])) }
            }
            let replicator = localReplicator(source, target, .push)
            let seen = Locked<[Replicator.Status]>([])
            let delivery = DispatchQueue(label: "test.progress")
            let token = replicator.addChangeListener(withQueue: delivery) { change in
                seen.withLock { $0.append(change.status) }
            }
            let final = await replicator.runToCompletion()
            // Every status the replicator will ever hand out is queued by now, on its own queue
            // (coalesced progress) or on ours: drain both, in that order, and a late duplicate
            // is among what was seen.
            replicator.listenerQueue.sync {}
            delivery.sync {}
            replicator.removeChangeListener(withToken: token)
            let statuses = seen.withLock { $0 }
            #expect(final.error == nil)
            #expect(statuses.filter { $0.activity == .stopped }.count == 1)
            #expect(statuses.last?.activity == .stopped)
            #expect(statuses.last?.progress.completed == 300)
            #expect(statuses.last?.progress.total == 300)
            let completed = statuses.map(\.progress.completed)
            #expect(completed == completed.sorted())
        }
    }
}
