@testable import CouchbaseLiteSwift
import LiteDatabase
import Foundation
import Synchronization
import Testing
import TestSupport
import LiteSupport

@Suite(.ownThreads) struct DatabaseTests {
    @Test(arguments: StorageEngineKind.allCases)
    func saveUpdateAndDelete(engine: StorageEngineKind) throws {
        try withDatabase(engine) { database, _ in
            let doc = try saved(database, "doc", ["v": 1])
            #expect(doc.revisionID?.hasPrefix("1-") == true)
            #expect(doc.sequence == 1)
            doc.setInt(2, forKey: "v")
            try database.saveDocument(doc)
            #expect(doc.revisionID?.hasPrefix("2-") == true)
            #expect(database.document(withID: "doc")?.int(forKey: "v") == 2)
            #expect(database.count == 1)
            try database.deleteDocument(doc)
            #expect(database.document(withID: "doc") == nil)
            #expect(database.count == 0)
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func deletingAnUnsavedDocumentIsNotFound(engine: StorageEngineKind) throws {
        try withDatabase(engine) { database, _ in
            #expect { try database.deleteDocument(MutableDocument(id: "never")) } throws: {
                ($0 as? CouchbaseLiteError)?.code == .notFound
            }
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func lastWriteWinsAndFailOnConflictAcrossTwoInstances(engine: StorageEngineKind) throws {
        try withTemporaryDirectory { directory in
            let one = try Database(name: "shared", config: engine.config(in: directory))
            let two = try Database(name: "shared", config: engine.config(in: directory))
            defer { try? one.close(); try? two.close() }
            try saved(one, "doc", ["writer": "one"])
            let fromOne = try #require(one.document(withID: "doc")?.toMutable())
            let fromTwo = try #require(two.document(withID: "doc")?.toMutable())
            fromTwo.setString("two", forKey: "writer")
            try two.saveDocument(fromTwo)

            fromOne.setString("one again", forKey: "writer")
            #expect(try one.saveDocument(fromOne, concurrencyControl: .failOnConflict) == false)
            #expect(one.document(withID: "doc")?.string(forKey: "writer") == "two")
            #expect(try one.saveDocument(fromOne, concurrencyControl: .lastWriteWins))
            #expect(two.document(withID: "doc")?.string(forKey: "writer") == "one again")
            #expect(two.document(withID: "doc")?.revisionID?.hasPrefix("3-") == true)
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func conflictHandlerMergesOrGivesUp(engine: StorageEngineKind) throws {
        try withDatabase(engine) { database, _ in
            try saved(database, "doc", ["a": 1])
            let stale = try #require(database.document(withID: "doc")?.toMutable())
            let other = try #require(database.document(withID: "doc")?.toMutable())
            try database.saveDocument(other.setInt(2, forKey: "b"))
            stale.setInt(3, forKey: "c")
            let merged = try database.saveDocument(stale) { mine, current in
                mine.setInt(current?.int(forKey: "b") ?? 0, forKey: "b")
                return true
            }
            #expect(merged)
            let read = try #require(database.document(withID: "doc"))
            #expect(read.int(forKey: "b") == 2 && read.int(forKey: "c") == 3)

            let staleAgain = try #require(database.document(withID: "doc")?.toMutable())
            try database.saveDocument(try #require(database.document(withID: "doc")?.toMutable()).setInt(9, forKey: "a"))
            #expect(try database.saveDocument(staleAgain) { _, _ in false } == false)
            #expect(database.document(withID: "doc")?.int(forKey: "a") == 9)
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func purgeRemovesTheDocument(engine: StorageEngineKind) throws {
        try withDatabase(engine) { database, _ in
            let doc = try saved(database, "doc", ["v": 1])
            try database.purgeDocument(doc)
            #expect(database.document(withID: "doc") == nil)
            #expect { try database.purgeDocument(withID: "doc") } throws: {
                ($0 as? CouchbaseLiteError)?.code == .notFound
            }
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func expiredDocumentsDisappear(engine: StorageEngineKind) throws {
        try withDatabase(engine) { database, _ in
            try saved(database, "doc", ["v": 1])
            let gone = DispatchSemaphore(value: 0)
            let token = database.addDocumentChangeListener(withID: "doc") { _ in gone.signal() }
            defer { database.removeChangeListener(withToken: token) }
            // A far expiration is read back; a 50 ms one could be purged before the read on a
            // loaded machine (the core's test saw that race once).
            let later = Date().addingTimeInterval(3600)
            try database.setDocumentExpiration(withID: "doc", expiration: later)
            #expect(abs((database.getDocumentExpiration(withID: "doc")?.timeIntervalSince1970 ?? 0)
                        - later.timeIntervalSince1970) < 0.01)
            try database.setDocumentExpiration(withID: "doc", expiration: Date().addingTimeInterval(0.05))
            #expect(waitFor(gone, seconds: 30))
            #expect(database.document(withID: "doc") == nil)
            #expect(database.getDocumentExpiration(withID: "doc") == nil)
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func batchIsAtomic(engine: StorageEngineKind) throws {
        try withDatabase(engine) { database, _ in
            var failure: (any Error)?
            do {
                try database.inBatch { try saveTenThenFail(database) }
            } catch {
                failure = error
            }
            #expect(failure is BatchStop)
            #expect(database.count == 0)
            try database.inBatch {
                for index in 0..<10 { try saved(database, "doc-\(index)", ["i": index]) }
            }
            #expect(database.count == 10)
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func listenersHearEachCommitOnceAfterItCommitsOnTheirQueue(engine: StorageEngineKind) throws {
        try withDatabase(engine) { database, _ in
            let queue = DispatchQueue(label: "listener-test")
            let key = DispatchSpecificKey<Bool>()
            queue.setSpecific(key: key, value: true)
            let heard = Locked<[[String]]>([])
            let done = DispatchSemaphore(value: 0)
            let token = database.addChangeListener(withQueue: queue) { change in
                #expect(DispatchQueue.getSpecific(key: key) == true)
                #expect(change.database.count >= UInt64(change.documentIDs.count),
                        "the change is committed before listeners hear of it")
                heard.withLock { $0.append(change.documentIDs) }
                done.signal()
            }
            try database.inBatch {
                try saved(database, "a", [:])
                try saved(database, "b", [:])
            }
            try saved(database, "c", [:])
            #expect(waitFor(done) && waitFor(done))
            database.removeChangeListener(withToken: token)
            try saved(database, "d", [:])
            queue.sync {}
            #expect(heard.withLock { $0 } == [["a", "b"], ["c"]])
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func asyncChangeStreamDeliversChanges(engine: StorageEngineKind) async throws {
        let directory = try TemporaryDirectory()
        let database = try Database(name: "stream", config: engine.config(in: directory))
        defer { try? database.close() }
        let stream = database.changes()
        try saved(database, "one", [:])
        var iterator = stream.makeAsyncIterator()
        let change = await iterator.next()
        #expect(change?.documentIDs == ["one"])
    }

    @Test(arguments: StorageEngineKind.allCases)
    func copyMakesAnIndependentDatabase(engine: StorageEngineKind) throws {
        try withDatabase(engine, name: "original") { database, directory in
            try saved(database, "doc", ["v": 1])
            let path = try #require(database.path)
            try database.close()
            try Database.copy(fromPath: path, toDatabase: "copy", withConfig: engine.config(in: directory))
            let copy = try Database(name: "copy", config: engine.config(in: directory))
            defer { try? copy.close() }
            #expect(copy.document(withID: "doc")?.int(forKey: "v") == 1)
            let originalCore = try DatabaseCore(bundle: DatabaseBundle(name: "original", directory: directory.path),
                                                registry: StorageEngineRegistry(engines: [engine.engine]),
                                                engineName: nil, create: false, readOnly: true)
            defer { try? originalCore.close() }
            #expect(try copy.core.privateUUID() != originalCore.privateUUID(), "a copy gets new UUIDs")
            #expect(try copy.core.publicUUID() != originalCore.publicUUID())
            #expect(errorCode {
                try Database.copy(fromPath: path, toDatabase: "copy", withConfig: engine.config(in: directory))
            } == .invalidParameter)
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func deleteRemovesTheFiles(engine: StorageEngineKind) throws {
        try withTemporaryDirectory { directory in
            let database = try Database(name: "gone", config: engine.config(in: directory))
            try saved(database, "doc", [:])
            #expect(Database.exists(withName: "gone", inDirectory: directory.path))
            try database.delete()
            #expect(!Database.exists(withName: "gone", inDirectory: directory.path))
            #expect { try database.saveDocument(MutableDocument()) } throws: {
                ($0 as? CouchbaseLiteError)?.code == .notOpen
            }
        }
    }

    /// Deleting the files of a database that is open would lose what it writes next: an open
    /// database (another instance in this process, or another process) is refused with busy and
    /// keeps every document; once every instance is closed, it is deleted.
    @Test(arguments: StorageEngineKind.allCases)
    func anOpenDatabaseIsNotDeleted(engine: StorageEngineKind) throws {
        try withTemporaryDirectory { directory in
            let config = engine.config(in: directory)
            let first = try Database(name: "kept", config: config)
            defer { try? first.close() }
            try saved(first, "doc", ["n": 1])
            #expect(errorCode { try Database.delete(withName: "kept", inDirectory: directory.path) } == .busy)
            let second = try Database(name: "kept", config: config)
            #expect(errorCode { try second.delete() } == .busy)
            #expect(Database.exists(withName: "kept", inDirectory: directory.path))
            try saved(first, "after", ["n": 2])
            #expect(first.count == 2)
            try first.close()
            let reopened = try Database(name: "kept", config: config)
            #expect(reopened.document(withID: "after")?.int(forKey: "n") == 2)
            try reopened.delete()
            #expect(!Database.exists(withName: "kept", inDirectory: directory.path))
        }
    }

    @Test(arguments: ["", ".hidden", "a/b", "a:b"])
    func invalidNamesAreRejected(name: String) throws {
        let directory = try TemporaryDirectory()
        let config = DatabaseConfiguration()
        config.directory = directory.path
        #expect { try Database(name: name, config: config) } throws: {
            ($0 as? CouchbaseLiteError)?.code == .invalidParameter
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func reopeningKeepsTheEngineWhenUnset(engine: StorageEngineKind) throws {
        try withTemporaryDirectory { directory in
            try Database(name: "db", config: engine.config(in: directory)).close()
            let config = DatabaseConfiguration()
            config.directory = directory.path
            let reopened = try Database(name: "db", config: config)
            defer { try? reopened.close() }
            #expect(reopened.storageEngine == engine.publicEngine)
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func concurrentSavesLoseNothing(engine: StorageEngineKind) async throws {
        let directory = try TemporaryDirectory()
        let database = try Database(name: "busy", config: engine.config(in: directory))
        defer { try? database.close() }
        try saved(database, "counter", ["n": 0])
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for index in 0..<25 {
                        try saved(database, "doc-\(task)-\(index)", ["task": task])
                        // Increment with failOnConflict and retry: no update may be lost.
                        while true {
                            let counter = try #require(database.document(withID: "counter")?.toMutable())
                            counter.setInt(counter.int(forKey: "n") + 1, forKey: "n")
                            if try database.saveDocument(counter, concurrencyControl: .failOnConflict) { break }
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(database.count == 201)
        #expect(database.document(withID: "counter")?.int(forKey: "n") == 200)
    }

    @Test(arguments: StorageEngineKind.allCases)
    func codableValuesRoundTrip(engine: StorageEngineKind) throws {
        struct Hotel: Codable, Equatable {
            var name: String
            var stars: Int
            var tags: [String]
        }
        try withDatabase(engine) { database, _ in
            let hotel = Hotel(name: "Ritz", stars: 5, tags: ["luxury", "paris"])
            try database.saveDocument(from: hotel, withID: "hotel_1")
            #expect(try database.document(withID: "hotel_1", as: Hotel.self) == hotel)
            #expect(database.document(withID: "hotel_1")?.string(forKey: "name") == "Ritz")
        }
    }
}

private struct BatchStop: Error {}

private func saveTenThenFail(_ database: Database) throws {
    for index in 0..<10 { try saved(database, "doc-\(index)", ["i": index]) }
    throw BatchStop()
}
