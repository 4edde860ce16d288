import Crypto
import Fleece
import Foundation
import LiteStorage
import Testing
import TestSupport
import LiteSupport
@testable import LiteDatabase

@Suite(.ownThreads) struct DatabaseCoreTests {
    @Test(arguments: StorageEngineKind.allCases)
    func savedDocumentReadsBack(engine: StorageEngineKind) throws {
        try withTemporaryCore(engine) { core, _ in
            let saved = try #require(try save(core, "doc", #"{"name":"Scott","age":42}"#))
            #expect(saved.sequence == 1)
            // Shared keys are numbered in first-seen order and sort first: stored order, not alphabetical.
            #expect(try json(core, "doc") == #"{"name":"Scott","age":42}"#)
            #expect(try core.documentCount() == 1)
            #expect(try core.document(id: "missing") == nil)
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func revisionIDIsTheDigestOfTheStoredBody(engine: StorageEngineKind) throws {
        try withTemporaryCore(engine) { core, _ in
            let first = try #require(try save(core, "doc", #"{"a":1}"#))
            let firstBody = try #require(first.current?.body)
            var hasher = Insecure.SHA1()
            hasher.update(data: [0, 0] + firstBody)
            #expect(first.revisionID?.string == "1-" + hasher.finalize().map { String(format: "%02x", $0) }.joined())

            let parent = try #require(first.revisionID)
            let second = try #require(try save(core, "doc", #"{"a":2}"#, base: parent))
            let secondBody = try #require(second.current?.body)
            var childHasher = Insecure.SHA1()
            childHasher.update(data: [UInt8(parent.string.utf8.count)] + Array(parent.string.utf8) + [0] + secondBody)
            #expect(second.revisionID?.digest == Array(childHasher.finalize()))
            #expect(second.revisionID?.generation == 2)
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func updateKeepsHistoryAndDropsTheOldBody(engine: StorageEngineKind) throws {
        try withTemporaryCore(engine) { core, _ in
            let first = try #require(try save(core, "doc", #"{"v":1}"#))
            try save(core, "doc", #"{"v":2}"#, base: first.revisionID)
            let stored = try #require(try core.document(id: "doc"))
            #expect(stored.tree.history(from: 0).map(\.id) == [stored.revisionID, first.revisionID])
            #expect(stored.tree.revision(try #require(first.revisionID))?.body == nil)
            #expect(try json(core, "doc") == #"{"v":2}"#)
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func staleSaveFailsOrWinsByPolicy(engine: StorageEngineKind) throws {
        try withTemporaryCore(engine) { core, _ in
            let first = try #require(try save(core, "doc", #"{"v":1}"#))
            try save(core, "doc", #"{"v":2}"#, base: first.revisionID)
            #expect(try save(core, "doc", #"{"v":3}"#, base: first.revisionID, policy: .failOnConflict) == nil)
            #expect(try json(core, "doc") == #"{"v":2}"#)
            let winner = try #require(try save(core, "doc", #"{"v":4}"#, base: first.revisionID, policy: .lastWriteWins))
            #expect(winner.revisionID?.generation == 3)
            #expect(try json(core, "doc") == #"{"v":4}"#)
            #expect(!winner.flags.contains(.conflicted))
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func deletionLeavesATombstoneThatCanBeRecreated(engine: StorageEngineKind) throws {
        try withTemporaryCore(engine) { core, _ in
            let first = try #require(try save(core, "doc", #"{"v":1}"#))
            let deleted = try #require(try core.saveRevision(id: "doc", base: first.revisionID, deleted: true,
                                                             policy: .failOnConflict) { _ in })
            #expect(deleted.isDeleted)
            #expect(try core.documentCount() == 0)
            #expect(try core.document(id: "doc")?.isDeleted == true)
            let recreated = try #require(try save(core, "doc", #"{"v":5}"#, base: nil))
            #expect(recreated.revisionID?.generation == 3)
            #expect(try core.documentCount() == 1)
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func purgeRemovesEveryTrace(engine: StorageEngineKind) throws {
        try withTemporaryCore(engine) { core, _ in
            try save(core, "doc", #"{"v":1}"#)
            #expect(try core.purgeDocument(id: "doc"))
            #expect(try core.document(id: "doc") == nil)
            #expect(try core.purgeDocument(id: "doc") == false)
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func sharedKeysPersistAcrossReopen(engine: StorageEngineKind) throws {
        try withTemporaryDirectory { directory in
            let bundle = DatabaseBundle(name: "keys", directory: directory.path)
            do {
                let core = try DatabaseCore(bundle: bundle, registry: engine.registry, engineName: engine.engine.name)
                try save(core, "doc", #"{"type":"hotel","name":"Ritz"}"#)
                #expect(core.sharedKeys.count == 2)
                try core.close()
            }
            let reopened = try DatabaseCore(bundle: bundle, registry: engine.registry, engineName: nil)
            defer { try? reopened.close() }
            #expect(reopened.engine.name == engine.engine.name)
            #expect(reopened.sharedKeys.keys == ["type", "name"])
            #expect(try json(reopened, "doc") == #"{"type":"hotel","name":"Ritz"}"#)
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func failedTransactionLeavesNoDocumentAndNoKeys(engine: StorageEngineKind) throws {
        struct Abort: Error {}
        try withTemporaryCore(engine) { core, _ throws in
            #expect(throws: Abort.self) {
                try core.inTransaction { _ in
                    try save(core, "doc", #"{"brandNewKey":1}"#)
                    throw Abort()
                }
            }
            #expect(try core.document(id: "doc") == nil)
            #expect(core.sharedKeys.count == 0)
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func observersHearEachCommitOnceAfterItCommits(engine: StorageEngineKind) throws {
        try withTemporaryCore(engine) { core, _ in
            let heard = Locked<[[String]]>([])
            let token = core.addChangeObserver { ids in
                #expect(!core.dataFile.isInTransaction)
                heard.withLock { $0.append(ids) }
            }
            defer { core.removeChangeObserver(token) }
            try core.inTransaction { _ in
                try save(core, "a", "{}")
                try save(core, "b", "{}")
                #expect(heard.withLock { $0.isEmpty })
            }
            try save(core, "c", "{}")
            #expect(heard.withLock { $0 } == [["a", "b"], ["c"]])
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func treesArePrunedToTheMaximumDepth(engine: StorageEngineKind) throws {
        try withTemporaryCore(engine) { core, _ in
            var base: RevisionID?
            for value in 1...25 {
                base = try #require(try save(core, "doc", #"{"v":\#(value)}"#, base: base)).revisionID
            }
            let stored = try #require(try core.document(id: "doc"))
            #expect(stored.tree.count == DatabaseCore.defaultMaxRevTreeDepth)
            #expect(stored.revisionID?.generation == 25)
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func expiredDocumentsArePurgedByHousekeeping(engine: StorageEngineKind) throws {
        try withTemporaryCore(engine) { core, _ in
            try save(core, "keep", "{}")
            try save(core, "expire", "{}")
            let purged = DispatchSemaphore(value: 0)
            let token = core.addChangeObserver { ids in if ids.contains("expire") { purged.signal() } }
            defer { core.removeChangeObserver(token) }
            // Read back a far expiration first: a 20 ms one can be purged before the read on a
            // loaded machine (it was, once, in a whole-suite run beside two busy loops).
            let later = DatabaseCore.nowMilliseconds() + 3_600_000
            try core.setExpiration(id: "expire", to: later)
            #expect(try core.expiration(id: "expire") == later)
            // Moving the expiration closer must reschedule the housekeeping.
            try core.setExpiration(id: "expire", to: DatabaseCore.nowMilliseconds() + 20)
            #expect(purged.wait(timeout: .now() + 10) == .success)
            #expect(try core.document(id: "expire") == nil)
            #expect(try core.document(id: "keep") != nil)
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func expirationOfAMissingDocumentIsNotFound(engine: StorageEngineKind) throws {
        try withTemporaryCore(engine) { core, _ in
            #expect { try core.setExpiration(id: "nope", to: 1) } throws: { ($0 as? DatabaseError)?.code == .notFound }
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func twoInstancesShareKeysAndNotifications(engine: StorageEngineKind) throws {
        try withTemporaryDirectory { directory in
            let bundle = DatabaseBundle(name: "shared", directory: directory.path)
            let one = try DatabaseCore(bundle: bundle, registry: engine.registry, engineName: engine.engine.name)
            let two = try DatabaseCore(bundle: bundle, registry: engine.registry, engineName: nil)
            defer { try? one.close(); try? two.close() }
            let heard = Locked<[String]>([])
            let token = two.addChangeObserver { ids in heard.withLock { $0 += ids } }
            defer { two.removeChangeObserver(token) }
            try save(one, "doc", #"{"city":"Paris"}"#)
            #expect(try json(two, "doc") == #"{"city":"Paris"}"#)
            #expect(heard.withLock { $0 } == ["doc"])
        }
    }

    @Test func invalidDocumentIDsAreRejected() {
        for id in ["", String(repeating: "x", count: 241), "tab\there"] {
            #expect { try DatabaseCore.validate(documentID: id) } throws: { ($0 as? DatabaseError)?.code == .badDocID }
        }
    }

    @Test(arguments: ["", ".hidden", "a/b", "a:b"])
    func invalidDatabaseNamesAreRejected(name: String) {
        #expect(throws: DatabaseError.self) { try DatabaseBundle.validate(name: name) }
    }
}
