import Foundation
import LiteSupport
import Testing
import TestSupport

@Suite(.ownThreads) struct TestSupportTests {
    @Test func fixturesAreFound() throws {
        let readme = try Fixtures.data("README.md")
        #expect(String(decoding: readme, as: UTF8.self).contains("fleece/"))
    }

    /// `.ownThreads` lends each test case an executor of its own and runs the body on it, for
    /// synchronous and async tests and for every case of a parameterized test.
    @Test func aSynchronousTestRunsOnItsLentExecutor() throws {
        let lent = try #require(TestExecutorPool.lent)
        #expect(lent.isCurrentThread)
    }

    @Test(arguments: [1, 2])
    func eachCaseRunsOnItsLentExecutor(step: Int) async throws {
        let lent = try #require(TestExecutorPool.lent)
        #expect(lent.isCurrentThread)
        await Task.yield()
        #expect(lent.isCurrentThread, "after an await, step \(step) is still on its own threads")
    }

    /// An exclusive body (`.ownThreadsAlone`) starts only once every other body of its pool,
    /// timed or gated, has ended, and no gated body starts until it ends.
    @Test func anExclusiveBodyRunsAlone() async {
        let pool = TestExecutorPool(width: 3)
        let log = Locked<[String]>([])
        let (release, releaseAll) = AsyncStream<Void>.makeStream()
        let released = Locked(false)
        func note(_ event: String) { log.withLock { $0.append(event) } }
        func holdUntilReleased() async {
            for await _ in release { break }
            while !released.withLock({ $0 }) { await Task.yield() }
        }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await pool.run(gated: false) { _ in note("timed starts"); await holdUntilReleased(); note("timed ends") } }
            group.addTask { await pool.run(gated: true) { _ in note("gated starts"); await holdUntilReleased(); note("gated ends") } }
            while log.withLock({ $0.count }) < 2 { await Task.yield() }
            group.addTask {
                await pool.run(gated: true, exclusive: true) { _ in
                    note("alone starts")
                    for _ in 0..<100 { await Task.yield() }
                    note("alone ends")
                }
            }
            while pool.waitingCount < 1 { await Task.yield() }
            group.addTask { await pool.run(gated: true) { _ in note("after starts") } }
            while pool.waitingCount < 2 { await Task.yield() }
            released.withLock { $0 = true }
            releaseAll.finish()
        }
        let events = log.withLock { $0 }
        #expect(Set(events.prefix(4)) == ["timed starts", "gated starts", "timed ends", "gated ends"])
        #expect(Array(events.dropFirst(4)) == ["alone starts", "alone ends", "after starts"])
    }

    @Test func missingFixtureIsAClearError() {
        #expect(throws: Fixtures.NotFound.self) { try Fixtures.url("no/such/fixture") }
    }

    @Test func temporaryDirectoryIsRemovedWhenReleased() throws {
        var path = ""
        try withTemporaryDirectory { directory in
            path = directory.path
            try Data([1, 2, 3]).write(to: directory.appending("file"))
            #expect(FileManager.default.fileExists(atPath: path))
        }
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func fixtureCopyIsIndependentOfTheOriginal() throws {
        let directory = try TemporaryDirectory()
        let copy = try Fixtures.copy("fleece/1person.json", into: directory)
        try Data("changed".utf8).write(to: copy)
        let original = try Fixtures.data("fleece/1person.json")
        #expect(original != Data("changed".utf8))
    }

    /// Each kind names an engine of its own: a parameterized test over the kinds really runs
    /// twice against different engines (a kind mapped to the other engine's files fails this).
    @Test(arguments: StorageEngineKind.allCases)
    func everyKindNamesADistinctEngine(engine: StorageEngineKind) throws {
        #expect(StorageEngineKind(rawValue: engine.rawValue) == engine)
        let directory = try TemporaryDirectory()
        #expect(engine.dataFilePath(in: directory) != engine.other.dataFilePath(in: directory))
        #expect(engine.other.other == engine && engine.other != engine)
    }
}
