import CouchbaseLiteSwift
import Foundation
import Testing
import TestSupport

/// A continuous pull that started into an empty database (so its first listing skipped
/// deletions, as LiteCore's `activeOnly`) still gets the deletions made after it caught up
/// (found by the soak test: they never arrived).
@Suite(.ownThreads) struct ContinuousPullDeletionTests {
    @Test(.timeLimit(.minutes(TestTimeScale.minutes(1))), arguments: enginePairs)
    func deletionsAfterCatchingUpReachAPullThatStartedEmpty(engines: (StorageEngineKind, StorageEngineKind)) async throws {
        try await withTwoDatabases(engines) { source, target, _ in
            for number in 0..<3 {
                let document = MutableDocument(id: "d\(number)")
                document.setInt(number, forKey: "n")
                try source.saveDocument(document)
            }
            let replicator = localReplicator(target, source, .pull, continuous: true)
            let caughtUp = await replicator.startAndWait(for: .idle)
            #expect(caughtUp.activity == .idle && target.count == 3)

            let (deletions, deletion) = AsyncStream<Void>.makeStream()
            let token = target.addChangeListener { change in
                if change.documentIDs.contains("d1") { deletion.yield() }
            }
            try source.deleteDocument(try #require(source.document(withID: "d1")))
            for await _ in deletions where target.document(withID: "d1") == nil { break }
            target.removeChangeListener(withToken: token)
            #expect(target.document(withID: "d1") == nil && target.count == 2)
            replicator.stop()
        }
    }
}
