import CouchbaseLiteSwift
import Foundation
import LiteSupport
import Testing
import TestSupport

/// Replication between two local databases (`DatabaseEndpoint`), over the same protocol as
/// a network replication, for every pairing of engines.
@Suite(.ownThreads) struct LocalReplicationTests {
    @Test(arguments: enginePairs.indices)
    func pushCopiesDocumentsWithTheirRevisionIDsAndBlobs(pair: Int) async throws {
        try await withTwoDatabases(enginePairs[pair]) { source, target, _ in
            try source.inBatch {
                for index in 1...50 {
                    try source.saveDocument(MutableDocument(id: String(format: "doc-%02d", index),
                                                            data: ["n": index, "name": "Document \(index)", "tags": ["t\(index % 3)"]]))
                }
                let withBlob = MutableDocument(id: "with-blob")
                withBlob.setBlob(Blob(contentType: "text/plain", data: Data("hello blob".utf8)), forKey: "attachment")
                try source.saveDocument(withBlob)
            }
            let status = await localReplicator(source, target, .push).runToCompletion()
            #expect(status.activity == .stopped)
            #expect(status.error == nil)
            #expect(status.progress.completed == 51)
            #expect(try snapshot(target) == snapshot(source))
            let blob = try #require(target.document(withID: "with-blob")?.blob(forKey: "attachment"))
            #expect(blob.content == Data("hello blob".utf8))
        }
    }

    @Test(arguments: enginePairs.indices)
    func pullCopiesTheTargetsDocuments(pair: Int) async throws {
        try await withTwoDatabases(enginePairs[pair]) { source, target, _ in
            for index in 1...30 { try saved(target, "remote-\(index)", ["n": index]) }
            let status = await localReplicator(source, target, .pull).runToCompletion()
            #expect(status.error == nil)
            #expect(source.count == 30)
            #expect(try snapshot(source) == snapshot(target))
        }
    }

    @Test(arguments: enginePairs.indices)
    func aSecondRunSendsOnlyWhatChanged(pair: Int) async throws {
        try await withTwoDatabases(enginePairs[pair]) { source, target, _ in
            for index in 1...20 { try saved(source, "doc-\(index)", ["n": index]) }
            let first = await localReplicator(source, target).runToCompletion()
            #expect(first.error == nil)
            let document = try #require(source.document(withID: "doc-3")).toMutable()
            document.setInt(33, forKey: "n")
            try source.saveDocument(document)
            try source.deleteDocument(try #require(source.document(withID: "doc-4")))
            let second = await localReplicator(source, target).runToCompletion()
            #expect(second.error == nil)
            #expect(second.progress.total == 2)
            #expect(target.document(withID: "doc-3")?.int(forKey: "n") == 33)
            #expect(target.document(withID: "doc-4") == nil)
            #expect(try snapshot(target) == snapshot(source))
        }
    }

    @Test(arguments: enginePairs.indices)
    func updatesOnBothSidesMeetAndConflictsResolveTheSameWay(pair: Int) async throws {
        try await withTwoDatabases(enginePairs[pair]) { source, target, _ in
            for index in 1...5 { try saved(source, "doc-\(index)", ["n": index]) }
            #expect(await localReplicator(source, target).runToCompletion().error == nil)
            // Both sides change doc-1 (the target twice: it wins by generation); only the
            // source changes doc-2; the target deletes doc-3.
            let local = try #require(source.document(withID: "doc-1")).toMutable()
            local.setString("source", forKey: "edit")
            try source.saveDocument(local)
            for edit in ["target-1", "target-2"] {
                let remote = try #require(target.document(withID: "doc-1")).toMutable()
                remote.setString(edit, forKey: "edit")
                try target.saveDocument(remote)
            }
            let onlySource = try #require(source.document(withID: "doc-2")).toMutable()
            onlySource.setString("source", forKey: "edit")
            try source.saveDocument(onlySource)
            try target.deleteDocument(try #require(target.document(withID: "doc-3")))
            let status = await localReplicator(source, target).runToCompletion()
            #expect(status.error == nil)
            // The push of doc-1 is refused as a conflict, the pull brings the target's
            // revision, which wins; a second run settles both sides.
            #expect(await localReplicator(source, target).runToCompletion().error == nil)
            #expect(source.document(withID: "doc-1")?.string(forKey: "edit") == "target-2")
            #expect(target.document(withID: "doc-2")?.string(forKey: "edit") == "source")
            #expect(source.document(withID: "doc-3") == nil)
            #expect(try snapshot(target) == snapshot(source))
        }
    }

    @Test(arguments: enginePairs.indices)
    func aCustomResolverCanKeepTheLocalSide(pair: Int) async throws {
        struct LocalWins: ConflictResolverProtocol {
            func resolve(conflict: Conflict) -> Document? {
                // Both sides are shown with their revision IDs (generation 2 and 3 here).
                guard conflict.localDocument?.revisionID?.hasPrefix("2-") == true,
                      conflict.remoteDocument?.revisionID?.hasPrefix("3-") == true else { return nil }
                return conflict.localDocument
            }
        }
        try await withTwoDatabases(enginePairs[pair]) { source, target, _ in
            try saved(source, "doc", ["v": 0])
            #expect(await localReplicator(source, target).runToCompletion().error == nil)
            for (database, value) in [(source, 1), (target, 2), (target, 3)] {
                let document = try #require(database.document(withID: "doc")).toMutable()
                document.setInt(value, forKey: "v")
                try database.saveDocument(document)
            }
            let replicator = localReplicator(source, target) { $0.conflictResolver = LocalWins() }
            #expect(await replicator.runToCompletion().error == nil)
            #expect(await localReplicator(source, target).runToCompletion().error == nil)
            #expect(source.document(withID: "doc")?.int(forKey: "v") == 1)
            #expect(target.document(withID: "doc")?.int(forKey: "v") == 1)
            #expect(try snapshot(target) == snapshot(source))
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func eachTargetGetsEverythingWhateverWentToAnother(engine: StorageEngineKind) async throws {
        try await withTwoDatabases((engine, engine)) { source, first, directory in
            for index in 1...12 { try saved(source, "doc-\(index)", ["n": index]) }
            #expect(await localReplicator(source, first, .push).runToCompletion().error == nil)
            let second = try Database(name: "second", config: engine.config(in: directory))
            defer { try? second.close() }
            let replicator = localReplicator(source, second, .push)
            #expect(try replicator.pendingDocumentIds().count == 12)
            #expect(await replicator.runToCompletion().error == nil)
            #expect(second.count == 12)
            // Still nothing pending for the first one, and an edit is pending for both.
            #expect(try localReplicator(source, first, .push).pendingDocumentIds().isEmpty)
            let edited = try #require(source.document(withID: "doc-1")).toMutable()
            edited.setInt(100, forKey: "n")
            try source.saveDocument(edited)
            #expect(try localReplicator(source, first, .push).pendingDocumentIds() == ["doc-1"])
            #expect(try localReplicator(source, second, .push).pendingDocumentIds() == ["doc-1"])
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func filtersSeeEachRevisionWithItsIDAndBody(engine: StorageEngineKind) async throws {
        try await withTwoDatabases((engine, engine)) { source, target, _ in
            for index in 1...6 { try saved(source, "doc-\(index)", ["n": index]) }
            let edited = try #require(source.document(withID: "doc-2")).toMutable()
            edited.setInt(20, forKey: "n")
            try source.saveDocument(edited)
            let seen = Locked<[String: String]>([:])
            let replicator = localReplicator(source, target, .push) { config in
                config.pushFilter = { document, flags in
                    seen.withLock { $0[document.id] = document.revisionID ?? "none" }
                    return !flags.contains(.deleted) && document.int(forKey: "n") % 2 == 0
                }
            }
            #expect(await replicator.runToCompletion().error == nil)
            #expect(seen.withLock { $0 }["doc-2"] == source.document(withID: "doc-2")?.revisionID)
            #expect(seen.withLock { $0.count } == 6)
            #expect(target.count == 3)
            #expect(target.document(withID: "doc-2")?.int(forKey: "n") == 20)
            #expect(target.document(withID: "doc-1") == nil)
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func continuousReplicationDeliversANewSave(engine: StorageEngineKind) async throws {
        try await withTwoDatabases((engine, engine)) { source, target, _ in
            let replicator = localReplicator(source, target, .push, continuous: true)
            let idle = await replicator.startAndWait(for: .idle)
            #expect(idle.activity == .idle)
            let arrived = AsyncStream<Void>.makeStream()
            let token = target.addDocumentChangeListener(withID: "live") { _ in arrived.continuation.yield() }
            try saved(source, "live", ["n": 1])
            for await _ in arrived.stream { break }
            #expect(target.document(withID: "live")?.int(forKey: "n") == 1)
            target.removeChangeListener(withToken: token)
            let statuses = replicator.statusChanges()
            replicator.stop()
            for await status in statuses where status.activity == .stopped { break }
            #expect(replicator.status.activity == .stopped)
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func documentListenersHearEveryDocument(engine: StorageEngineKind) async throws {
        try await withTwoDatabases((engine, engine)) { source, target, _ in
            for index in 1...10 { try saved(source, "doc-\(index)", ["n": index]) }
            let replicator = localReplicator(source, target, .push)
            let seen = Locked<Set<String>>([])
            let queue = DispatchQueue(label: "document-listener")
            replicator.addDocumentReplicationListener(withQueue: queue) { replication in
                #expect(replication.isPush)
                seen.withLock { set in for document in replication.documents where document.error == nil { set.insert(document.id) } }
            }
            #expect(try replicator.pendingDocumentIds().count == 10)
            #expect(await replicator.runToCompletion().error == nil)
            #expect(try replicator.pendingDocumentIds().isEmpty)
            #expect(try !replicator.isDocumentPending("doc-1"))
            queue.sync {}  // drains the listener calls queued before the replicator stopped
            #expect(seen.withLock { $0 } == Set((1...10).map { "doc-\($0)" }))
        }
    }

    /// Replication reads and writes encrypted databases as any other (both ways, blobs
    /// included); a key change is refused while a continuous replicator uses the database, and
    /// succeeds once it has stopped.
    @Test(arguments: StorageEngineKind.allCases)
    func encryptedDatabasesReplicateAndAKeyChangeWaitsForTheReplicator(engine: StorageEngineKind) async throws {
        try await withTemporaryDirectory { directory in
            let config = engine.config(in: directory)
            config.encryptionKey = .password("source secret")
            let source = try Database(name: "source", config: config)
            let target = try Database(name: "target", config: engine.config(in: directory))
            defer {
                try? source.close()
                try? target.close()
            }
            for index in 1...20 { try saved(source, "doc-\(index)", ["n": index]) }
            let withBlob = MutableDocument(id: "with-blob")
            withBlob.setBlob(Blob(contentType: "text/plain", data: Data("encrypted blob".utf8)), forKey: "file")
            try source.saveDocument(withBlob)
            for index in 1...5 { try saved(target, "remote-\(index)", ["n": index]) }
            let status = await localReplicator(source, target).runToCompletion()
            #expect(status.error == nil)
            #expect(source.count == 26 && target.count == 26)
            #expect(try snapshot(source) == snapshot(target))
            #expect(target.document(withID: "with-blob")?.blob(forKey: "file")?.content == Data("encrypted blob".utf8))

            let continuous = localReplicator(source, target, continuous: true)
            let statuses = continuous.statusChanges()
            continuous.start()
            let busy = #expect(throws: CouchbaseLiteError.self) { try source.changeEncryptionKey(.password("new secret")) }
            #expect(busy?.code == .busy)
            continuous.stop()
            for await status in statuses where status.activity == .stopped { break }
            try source.changeEncryptionKey(.password("new secret"))
            try saved(source, "after-change", ["n": 0])
            let again = await localReplicator(source, target, .push).runToCompletion()
            #expect(again.error == nil)
            #expect(target.document(withID: "after-change") != nil)
        }
    }
}
