import CouchbaseLiteSwift
import Dispatch
import Foundation
import Testing
import TestSupport

/// Async writes wait as suspended tasks on the database's writer queue.
@Suite(.ownThreads) struct AsyncWriteTests {
    @Test(arguments: StorageEngineKind.allCases)
    func concurrentAsyncWritesAllCommit(engine: StorageEngineKind) async throws {
        let directory = try TemporaryDirectory()
        let database = try Database(name: "async", config: engine.config(in: directory))
        defer { try? database.close() }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<16 {
                group.addTask {
                    try await database.write { db in
                        for index in 0..<10 {
                            try db.saveDocument(MutableDocument(id: "t\(task)-\(index)", data: ["task": task]))
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(database.count == 160)
    }

    @Test(arguments: StorageEngineKind.allCases)
    func aFailingBlockCommitsNothingAndItsErrorReachesTheCaller(engine: StorageEngineKind) async throws {
        struct Refused: Error {}
        let directory = try TemporaryDirectory()
        let database = try Database(name: "async", config: engine.config(in: directory))
        defer { try? database.close() }
        await #expect(throws: Refused.self) {
            try await database.write { db in
                try db.saveDocument(MutableDocument(id: "never"))
                throw Refused()
            }
        }
        #expect(database.count == 0)
    }

    /// While a synchronous writer holds the database, more async writers than the machine has
    /// cores wait for it; other async work must still run meanwhile (they must not occupy
    /// the shared threads).
    @Test(arguments: StorageEngineKind.allCases)
    func waitingAsyncWritersDoNotStarveOtherTasks(engine: StorageEngineKind) async throws {
        let directory = try TemporaryDirectory()
        let database = try Database(name: "async", config: engine.config(in: directory))
        defer { try? database.close() }
        let holding = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        let holder = startThread { () throws -> Bool in
            try database.inBatch {
                try database.saveDocument(MutableDocument(id: "held"))
                holding.signal()
                release.wait()
            }
            return true
        }
        holding.wait()
        let writers = Task {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<(ProcessInfo.processInfo.activeProcessorCount * 4) {
                    group.addTask {
                        try await database.write { db in try db.saveDocument(MutableDocument(id: "w\(index)")) }
                    }
                }
                try await group.waitForAll()
            }
        }
        // Other async work completes while every writer is still waiting for the lock.
        let otherWork = await Task.detached { (1...1_000).reduce(0, +) }.value
        #expect(otherWork == 500_500)
        #expect(database.count == 0)
        release.signal()
        #expect(try holder.wait())
        try await writers.value
        #expect(database.count == 1 + UInt64(ProcessInfo.processInfo.activeProcessorCount * 4))
    }
}
