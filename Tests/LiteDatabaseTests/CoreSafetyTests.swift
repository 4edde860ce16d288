import BlobStore
import Fleece
import Foundation
import LiteStorage
import LiteSupport
import TestSupport
import Testing
@testable import LiteDatabase

/// Paths that delete or report must fail loudly on doubt, and the maintenance tasks must
/// really run.
@Suite(.ownThreads) struct CoreSafetyTests {
    /// Saves `id` with a body referring to a blob whose content is `content`, stored first.
    private static func saveWithBlob(_ core: DatabaseCore, _ id: String, content: String) throws -> BlobKey {
        let key = try core.blobStore.write(Data(content.utf8))
        try save(core, id, #"{"file":{"@type":"blob","digest":"\#(key.string)","length":\#(content.utf8.count),"content_type":"text/plain"}}"#)
        return key
    }

    /// Replaces the current revision's body of `id` with bytes that are not Fleece, as a
    /// damaged disk or a bug elsewhere would, through another handle on the same file.
    static func damageBody(of id: String, in core: DatabaseCore, engine: StorageEngineKind) throws {
        let path = core.engine.dataFilePath(inBundle: core.bundle.path)
        let file = try engine.engine.open(at: path, options: DataFileOptions(create: false, readOnly: false))
        defer { try? file.close() }
        let store = try file.keyStore(DatabaseCore.StoreNames.documents)
        let record = try #require(try store.get(id))
        let garbage: [UInt8] = [0xFF, 0xEE, 0xDD, 0xCC, 0x01]
        var tree = RevisionTree()
        let revision = try RevisionID(parsing: "1-0123456789abcdef0123456789abcdef01234567")
        try tree.insert(revision, body: garbage, deleted: false, hasAttachments: true, parent: nil, allowConflict: false)
        try file.write { txn in
            _ = try store.set(Record(key: id, version: revision.binary, body: try tree.encoded(), flags: record.flags),
                              ifSequence: nil, in: txn)
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func compactionDeletesNothingWhenABodyCannotBeRead(engine: StorageEngineKind) throws {
        try withTemporaryCore(engine) { core, _ in
            let kept = try Self.saveWithBlob(core, "damaged", content: "precious")
            let unused = try core.blobStore.write(Data("nobody refers to me".utf8))
            try Self.damageBody(of: "damaged", in: core, engine: engine)
            #expect(throws: DatabaseError.self) { try core.compact() }
            #expect(core.blobStore.contains(kept))
            #expect(core.blobStore.contains(unused))
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func compactionStillRemovesUnusedBlobs(engine: StorageEngineKind) throws {
        try withTemporaryCore(engine) { core, _ in
            let kept = try Self.saveWithBlob(core, "doc", content: "kept")
            let unused = try core.blobStore.write(Data("unused".utf8))
            #expect(try core.compact() == 1)
            #expect(core.blobStore.contains(kept))
            #expect(!core.blobStore.contains(unused))
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func integrityCheckFindsADamagedBodyAndAMissingBlob(engine: StorageEngineKind) throws {
        try withTemporaryCore(engine) { core, _ in
            try save(core, "fine", #"{"a":1}"#)
            #expect(try core.checkIntegrity() == [])

            let lost = try Self.saveWithBlob(core, "with-blob", content: "soon gone")
            _ = try core.blobStore.delete(lost)
            try save(core, "damaged", #"{"b":2}"#)
            try Self.damageBody(of: "damaged", in: core, engine: engine)

            let problems = try core.checkIntegrity()
            #expect(problems.count == 2)
            #expect(problems.contains { $0.contains("\"damaged\"") && $0.contains("not valid Fleece") })
            #expect(problems.contains { $0.contains("\"with-blob\"") && $0.contains(lost.string) && $0.contains("missing") })
        }
    }

    /// Records every change it is told about, and counts rebuilds.
    private final class RecordingIndexer: DocumentIndexer {
        let changes = Locked<[(id: String, old: String?, new: String?)]>([])
        let rebuilds = Locked(0)

        func documentChanged(_ change: DocumentBodyChange, in core: DatabaseCore, txn: borrowing WriteTransaction) throws {
            #expect(core.dataFile.isInTransaction)
            let decode = { (bytes: [UInt8]?) -> String? in
                bytes.flatMap { try? FleeceDocument(bytes: $0.isEmpty ? StoredDocument.emptyDictionary : $0,
                                                    sharedKeys: core.sharedKeys).root.json() }
            }
            changes.withLock { $0.append((change.documentID, decode(change.oldBody), decode(change.newBody))) }
        }

        func rebuild(in core: DatabaseCore, txn: borrowing WriteTransaction) throws {
            #expect(core.dataFile.isInTransaction)
            rebuilds.withLock { $0 += 1 }
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func indexersSeeEveryChangeOfTheCurrentRevision(engine: StorageEngineKind) throws {
        try withTemporaryCore(engine) { core, _ in
            let indexer = RecordingIndexer()
            let token = core.addIndexer(indexer)
            defer { core.removeIndexer(token) }

            let first = try #require(try save(core, "doc", #"{"v":1}"#))
            let second = try #require(try save(core, "doc", #"{"v":2}"#, base: first.revisionID))
            _ = try core.saveRevision(id: "doc", base: second.revisionID, deleted: true, policy: .failOnConflict) { _ in }
            try save(core, "gone", #"{"w":1}"#)
            try core.purgeDocument(id: "gone")
            try save(core, "expiring", #"{"e":1}"#)
            // The housekeeping timer purges it; wait for that commit's notification.
            let purged = DispatchSemaphore(value: 0)
            let observer = core.addChangeObserver { ids in if ids.contains("expiring") { purged.signal() } }
            defer { core.removeChangeObserver(observer) }
            try core.setExpiration(id: "expiring", to: DatabaseCore.nowMilliseconds() - 1)
            #expect(purged.wait(timeout: .now() + 10) == .success)
            #expect(try core.document(id: "expiring") == nil)

            let seen = indexer.changes.withLock { $0.map { "\($0.id) \($0.old ?? "-") > \($0.new ?? "-")" } }
            #expect(seen == [
                #"doc - > {"v":1}"#, #"doc {"v":1} > {"v":2}"#, #"doc {"v":2} > -"#,
                #"gone - > {"w":1}"#, #"gone {"w":1} > -"#,
                #"expiring - > {"e":1}"#, #"expiring {"e":1} > -"#,
            ])
            #expect(try core.reindex() == 1)
            #expect(indexer.rebuilds.withLock { $0 } == 1)
        }
    }

    @Test func expirationRetriesBackOffAfterFailures() throws {
        try withTemporaryCore(.sqlite) { core, _ in
            #expect(core.expirationRetryDelay() == 0)
            let delays = (0..<8).map { _ in core.noteExpirationFailure() }
            #expect(delays == [1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000])
            core.noteExpirationSuccess()
            #expect(core.expirationRetryDelay() == 0)
        }
    }
}
