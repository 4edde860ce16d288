import Fleece
import Foundation
import LiteStorage
import LiteSupport
import Testing
import TestSupport
@testable import CouchbaseLiteSwift
@testable import LiteDatabase

/// Failures on paths that read, count or check never pass silently for success.
@Suite(.serialized, .ownThreads) struct LoudFailureTests {
    /// Collects error messages the database logs.
    final class Collector: CustomLogger {
        let messages = Locked<[String]>([])
        var level: LogLevel { .error }
        func log(level: LogLevel, domain: LogDomain, message: String) {
            if level >= .error { messages.withLock { $0.append(message) } }
        }
    }

    /// A document whose stored body cannot be read reads as empty but refuses to be saved,
    /// which would replace its content with nothing.
    @Test(arguments: StorageEngineKind.allCases)
    func aDocumentWithAnUnreadableBodyCannotBeSaved(engine: StorageEngineKind) throws {
        try withDatabase(engine) { database, _ in
            try saved(database, "doc", ["keep": "me"])
            var stored = try #require(try database.core.document(id: "doc"))
            var tree = RevisionTree()
            let garbage: [UInt8] = [0xFF, 0x00, 0x13]
            try tree.insert(RevisionID.next(after: nil, deleted: false, body: garbage), body: garbage, deleted: false,
                            hasAttachments: false, parent: nil, allowConflict: false)
            stored.tree = tree
            let document = Document(id: "doc", database: database, stored: stored, body: nil, mutable: false).toMutable()
            #expect(document.count == 0)
            let error = #expect(throws: CouchbaseLiteError.self) { try database.saveDocument(document) }
            #expect(error?.code == .corruptRevisionData)
            #expect(database.document(withID: "doc")?.string(forKey: "keep") == "me")
        }
    }

    /// The 2.x accessors that cannot throw log what went wrong; their throwing twins throw it.
    @Test func readsOnAClosedDatabaseLogAndThrow() throws {
        let collector = Collector()
        try GlobalLogLock.exclusive {
            let previous = Database.log.custom
            Database.log.custom = collector
            defer { Database.log.custom = previous }
            try readsOnAClosedDatabase(collector)
        }
    }

    private func readsOnAClosedDatabase(_ collector: Collector) throws {
        try withDatabase(.sqlite) { database, _ in
            try saved(database, "doc", ["a": 1])
            try database.close()
            #expect(database.count == 0)
            #expect(errorCode { _ = try database.documentCount() } == .notOpen)
            #expect(database.getDocumentExpiration(withID: "doc") == nil)
            #expect(errorCode { _ = try database.documentExpiration(withID: "doc") } == .notOpen)
            #expect(collector.messages.withLock { $0 }.contains { $0.contains("expiration of document \"doc\"") })
        }
    }

    /// Maintenance `integrityCheck` throws `corruptData` naming the damaged document.
    @Test(arguments: StorageEngineKind.allCases)
    func theIntegrityCheckThrowsForADamagedDocument(engine: StorageEngineKind) throws {
        try withDatabase(engine) { database, _ in
            try saved(database, "fine", ["a": 1])
            try database.performMaintenance(type: .integrityCheck)
            try saved(database, "broken", ["b": 2])
            let path = database.core.engine.dataFilePath(inBundle: database.core.bundle.path)
            let file = try engine.engine.open(at: path, options: DataFileOptions())
            let store = try file.keyStore("default")
            var tree = RevisionTree()
            let garbage: [UInt8] = [0xFF, 0x00, 0x13]
            let revision = RevisionID.next(after: nil, deleted: false, body: garbage)
            try tree.insert(revision, body: garbage, deleted: false, hasAttachments: false, parent: nil, allowConflict: false)
            try file.write { txn in _ = try store.set(Record(key: "broken", version: revision.binary, body: try tree.encoded()), ifSequence: nil, in: txn) }
            try file.close()
            let error = #expect(throws: CouchbaseLiteError.self) { try database.performMaintenance(type: .integrityCheck) }
            #expect(error?.code == .corruptData)
            #expect(error?.message.contains("\"broken\"") == true)
        }
    }
}
