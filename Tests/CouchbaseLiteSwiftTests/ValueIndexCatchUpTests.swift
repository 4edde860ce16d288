import CouchbaseLiteSwift
import Fleece
import Foundation
import LiteQuery
import LiteStorage
import Testing
import TestSupport
@testable import LiteDatabase

/// A value index records the document store's state it reflects; writes made without it (by
/// real Couchbase Lite, which knows nothing of our index stores, or here by a `DatabaseCore`
/// with no indexer registered) leave it behind, and opening the database catches it up — by
/// sequence, or by rebuilding when documents were purged. Both engines.
@Suite(.ownThreads) struct ValueIndexCatchUpTests {
    private static let definition = #"[[".v"]]"#

    private func json(_ text: String) -> (FleeceEncoder) throws -> Void {
        { encoder in try Array(text.utf8).withUnsafeBytes { try JSONConverter.write(json: $0, to: encoder) } }
    }

    private func save(_ core: DatabaseCore, _ id: String, _ body: String) throws {
        let base = try core.document(id: id)?.revisionID
        try core.saveRevision(id: id, base: base, policy: .failOnConflict, encodeBody: json(body))
    }

    private func delete(_ core: DatabaseCore, _ id: String) throws {
        let base = try #require(try core.document(id: id)).revisionID
        try core.saveRevision(id: id, base: base, deleted: true, policy: .failOnConflict) { _ in }
    }

    /// Ten documents `d0`…`d9` with `v` = their number, indexed by `byV`.
    private func makeIndexedDatabase(_ engine: StorageEngineKind, _ directory: TemporaryDirectory) throws {
        try withBareCore(engine, directory, create: true) { core in
            try ValueIndex.create(name: "byV", definition: Self.definition, in: core)
            try core.inTransaction { _ in
                for number in 0..<10 { try save(core, "d\(number)", #"{"v":\#(number)}"#) }
            }
            #expect(try ValueIndex.stored(in: core).first?.isCurrent == true)
        }
    }

    private func ids(_ database: Database, v: Int) throws -> [String] {
        try database.createQuery(json: #"{"WHAT":[["._id"]],"WHERE":["=",[".v"],\#(v)]}"#).execute()
            .map { $0.string(at: 0) ?? "" }.sorted()
    }

    @Test(arguments: StorageEngineKind.allCases)
    func ourOwnWritesKeepTheRecordedStateCurrent(engine: StorageEngineKind) throws {
        try withTemporaryDirectory { directory in
            try makeIndexedDatabase(engine, directory)
            try withBareCore(engine, directory) { core in
                let index = try ValueIndex.create(name: "byV", definition: Self.definition, in: core)
                try save(core, "d1", #"{"v":100}"#)
                try delete(core, "d2")
                try core.purgeDocument(id: "d3")
                #expect(try index.isCurrent(in: core))
                #expect(try index.catchUp(in: core) == .current)
            }
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func writesMadeWithoutTheIndexAreCaughtUpBySequence(engine: StorageEngineKind) throws {
        try withTemporaryDirectory { directory in
            try makeIndexedDatabase(engine, directory)
            try withBareCore(engine, directory) { core in
                #expect(core.registeredIndexers.isEmpty)
                try save(core, "d1", #"{"v":100}"#)
                try delete(core, "d2")
                try save(core, "d10", #"{"v":5}"#)
            }
            try withBareCore(engine, directory) { core in
                #expect(try ValueIndex.stored(in: core).first?.isCurrent == false)
                let index = try ValueIndex.create(name: "byV", definition: Self.definition, in: core)
                // An index that is behind stays marked behind through our own writes.
                try save(core, "d4", #"{"v":40}"#)
                #expect(try !index.isCurrent(in: core))
                #expect(try index.catchUp(in: core) == .caughtUp(documents: 4))
                #expect(try index.catchUp(in: core) == .current)
            }
            let database = try Database(name: "test", config: engine.config(in: directory))
            defer { try? database.close() }
            #expect(try ids(database, v: 100) == ["d1"])
            #expect(try ids(database, v: 1) == [])
            #expect(try ids(database, v: 2) == [])
            #expect(try ids(database, v: 4) == [])
            #expect(try ids(database, v: 40) == ["d4"])
            #expect(try ids(database, v: 5) == ["d10", "d5"])
            #expect(try database.createQuery(json: #"{"WHAT":[["._id"]],"WHERE":["=",[".v"],5]}"#).explain()
                .contains("index \"byV\""))
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func aPurgeMadeWithoutTheIndexRebuildsItOnOpen(engine: StorageEngineKind) throws {
        try withTemporaryDirectory { directory in
            try makeIndexedDatabase(engine, directory)
            try withBareCore(engine, directory) { core in
                #expect(core.registeredIndexers.isEmpty)
                try core.purgeDocument(id: "d3")
                try save(core, "d7", #"{"v":3}"#)
            }
            try withBareCore(engine, directory) { core in
                let index = try ValueIndex.create(name: "byV", definition: Self.definition, in: core)
                #expect(try index.catchUp(in: core) == .rebuilt)
                #expect(try index.isCurrent(in: core))
            }
            try withBareCore(engine, directory) { core in
                #expect(core.registeredIndexers.isEmpty)
                try save(core, "d8", #"{"v":3}"#)
            }
            // Opening through the public API catches up too.
            let database = try Database(name: "test", config: engine.config(in: directory))
            defer { try? database.close() }
            #expect(try ids(database, v: 3) == ["d7", "d8"])
            #expect(try ids(database, v: 7) == [])
            #expect(try ids(database, v: 8) == [])
        }
    }
}
