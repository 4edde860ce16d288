import Fleece
import Foundation
import LiteStorage
import TestSupport
import LiteSupport
import Testing
@testable import LiteDatabase

/// The shared-key table must never lose keys another transaction committed, and must follow
/// keys that another writer of the file (another process) added.
@Suite(.ownThreads) struct SharedKeysSafetyTests {
    private struct Failure: Error {}

    /// Several threads save documents with property names nobody used before while others
    /// run transactions that add names and then fail. A failing transaction used to revert the
    /// table to a count taken before it held the write lock, dropping names another thread had
    /// just committed, so their indexes were reused and earlier documents decoded with wrong
    /// property names.
    @Test(arguments: StorageEngineKind.allCases)
    func abortedTransactionsNeverDropCommittedKeys(engine: StorageEngineKind) throws {
        try withTemporaryDirectory { directory in
            let bundle = DatabaseBundle(name: "keys", directory: directory.path)
            let core = try DatabaseCore(bundle: bundle, registry: engine.registry, engineName: engine.engine.name)
            let threads = (0..<6).map { thread in
                startThread { () throws -> [String: String] in
                    var expected: [String: String] = [:]
                    for round in 0..<40 {
                        let id = "t\(thread)-\(round)"
                        let json = #"{"k\#(thread)_\#(round)":\#(round),"v\#(thread)x\#(round)":"\#(id)"}"#
                        if round % 3 == 1 {
                            // Adds names, then fails: only its own names may be forgotten.
                            _ = try? core.inTransaction { _ in
                                try save(core, "aborted-\(id)", #"{"gone\#(thread)_\#(round)":1}"#)
                                throw Failure()
                            }
                        } else {
                            try save(core, id, json)
                            expected[id] = json
                        }
                    }
                    return expected
                }
            }
            var expected: [String: String] = [:]
            for thread in threads { expected.merge(try thread.wait()) { first, _ in first } }
            for (id, json) in expected { #expect(try LiteDatabaseTests.json(core, id) == json) }
            try core.close()

            // Reopened, the persisted table gives the same names.
            let reopened = try DatabaseCore(bundle: bundle, registry: engine.registry, engineName: nil)
            defer { try? reopened.close() }
            for (id, json) in expected { #expect(try LiteDatabaseTests.json(reopened, id) == json) }
            #expect(try reopened.document(id: "aborted-t0-1") == nil)
        }
    }

    /// Another writer of the same file (as another process would, with its own table) adds
    /// keys and saves a document that uses them; this instance must read that document with the
    /// right names, and its own next save must extend the table, not overwrite it.
    @Test(arguments: StorageEngineKind.allCases)
    func keysAddedByAnotherWriterAreLoaded(engine: StorageEngineKind) throws {
        try withTemporaryCore(engine) { core, _ in
            try save(core, "mine-1", #"{"alpha":1}"#)

            // The other writer: its own file handle and its own key table loaded from the file.
            let path = core.engine.dataFilePath(inBundle: core.bundle.path)
            let other = try engine.engine.open(at: path, options: DataFileOptions(create: false, readOnly: false))
            defer { try? other.close() }
            let info = try other.keyStore(DatabaseCore.StoreNames.info)
            let theirKeys = try SharedKeys(persisted: try #require(try info.get(DatabaseCore.InfoKeys.sharedKeys)).body)
            #expect(theirKeys.keys == ["alpha"])
            try other.write { txn in
                let body = try JSONConverter.fleece(fromJSON: #"{"beta":2,"gamma":3}"#, sharedKeys: theirKeys)
                let revision = RevisionID.next(after: nil, deleted: false, body: body)
                var tree = RevisionTree()
                try tree.insert(revision, body: body, deleted: false, hasAttachments: false, parent: nil, allowConflict: false)
                try other.keyStore(DatabaseCore.StoreNames.documents)
                    .set(Record(key: "theirs", version: revision.binary, body: try tree.encoded()), ifSequence: 0, in: txn)
                try info.set(Record(key: DatabaseCore.InfoKeys.sharedKeys, body: try theirKeys.persistedBytes()), ifSequence: nil, in: txn)
            }

            // Read with the right names although this instance's table had only "alpha".
            #expect(try json(core, "theirs") == #"{"beta":2,"gamma":3}"#)

            // A save that adds a name extends the table the other writer persisted.
            try save(core, "mine-2", #"{"delta":4}"#)
            let persisted = try SharedKeys(persisted: try #require(try info.get(DatabaseCore.InfoKeys.sharedKeys)).body)
            #expect(persisted.keys == ["alpha", "beta", "gamma", "delta"])
            #expect(try json(core, "mine-2") == #"{"delta":4}"#)
            #expect(try json(core, "theirs") == #"{"beta":2,"gamma":3}"#)
        }
    }

    /// The other writer adds keys and this instance saves next without reading first: its
    /// transaction must start from the persisted table, or its new key would take an index the
    /// other writer already gave to another name.
    @Test(arguments: StorageEngineKind.allCases)
    func aWriteTransactionStartsFromThePersistedTable(engine: StorageEngineKind) throws {
        try withTemporaryCore(engine) { core, _ in
            try save(core, "mine-1", #"{"alpha":1}"#)
            let path = core.engine.dataFilePath(inBundle: core.bundle.path)
            let other = try engine.engine.open(at: path, options: DataFileOptions(create: false, readOnly: false))
            defer { try? other.close() }
            let info = try other.keyStore(DatabaseCore.StoreNames.info)
            try other.write { txn in
                let table = SharedKeys(keys: ["alpha", "omega"])
                try info.set(Record(key: DatabaseCore.InfoKeys.sharedKeys, body: try table.persistedBytes()), ifSequence: nil, in: txn)
            }
            try save(core, "mine-2", #"{"zeta":26}"#)
            #expect(core.sharedKeys.keys == ["alpha", "omega", "zeta"])
            let persisted = try SharedKeys(persisted: try #require(try info.get(DatabaseCore.InfoKeys.sharedKeys)).body)
            #expect(persisted.keys == ["alpha", "omega", "zeta"])
        }
    }

    /// Two spellings of one directory are one database: one key table, one change feed.
    @Test(arguments: StorageEngineKind.allCases)
    func twoSpellingsOfOnePathShareTheTable(engine: StorageEngineKind) throws {
        try withTemporaryDirectory { directory in
            let plain = DatabaseBundle(name: "db", directory: directory.path)
            let first = try DatabaseCore(bundle: plain, registry: engine.registry, engineName: engine.engine.name)
            defer { try? first.close() }
            let link = directory.path + "/link"
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: directory.path)
            let second = try DatabaseCore(bundle: DatabaseBundle(name: "db", directory: link + "/."),
                                          registry: engine.registry, engineName: nil)
            defer { try? second.close() }
            #expect(first.sharedKeys === second.sharedKeys)
            let heard = Locked<[String]>([])
            let token = first.addChangeObserver { ids in heard.withLock { $0 += ids } }
            defer { first.removeChangeObserver(token) }
            try save(second, "from-second", #"{"x":1}"#)
            #expect(heard.withLock { $0 } == ["from-second"])
        }
    }
}
