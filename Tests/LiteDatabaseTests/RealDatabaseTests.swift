import Fleece
import Testing
import TestSupport
@testable import LiteDatabase

/// Databases written by real Couchbase Lite 2.x (shared/fixtures/v2), opened by the core.
@Suite(.ownThreads) struct RealDatabaseTests {
    @Test func upgrade27DatabaseOpensWithItsDocuments() throws {
        let directory = try TemporaryDirectory()
        try Fixtures.copy("v2/upgrade_2.7.cblite2", into: directory)
        let core = try DatabaseCore(bundle: DatabaseBundle(name: "upgrade_2.7", directory: directory.path),
                                    registry: StorageEngineKind.sqlite.registry, engineName: nil, create: false)
        defer { try? core.close() }
        #expect(core.engine.name == "SQLite")
        #expect(try core.documentCount() == 50)
        #expect(try core.lastSequence() == 100)
        for number in [1, 2, 50, 51, 100] {
            let id = String(format: "doc-%03d", number)
            let document = try #require(try core.document(id: id))
            #expect(document.isDeleted == (number > 50))
            let body = try #require(try document.body(sharedKeys: core.sharedKeys))
            let properties = try #require(body.root.dictionary)
            #expect(properties["n"]?.int64 == Int64(number))
            #expect(properties["even"]?.bool == (number % 2 == 0))
        }
    }

    @Test func android20DatabaseOpensWithBlobReferences() throws {
        let directory = try TemporaryDirectory()
        try Fixtures.copy("v2/android200-sqlite/android-sqlite.cblite2", into: directory)
        let core = try DatabaseCore(bundle: DatabaseBundle(name: "android-sqlite", directory: directory.path),
                                    registry: StorageEngineKind.sqlite.registry, engineName: nil, create: false)
        defer { try? core.close() }
        #expect(try core.documentCount() == 2)
        for number in 1...2 {
            let document = try #require(try core.document(id: "doc\(number)"))
            #expect(document.flags.contains(.hasAttachments))
            let root = try #require(try document.body(sharedKeys: core.sharedKeys)).root
            #expect(root.dictionary?["key"]?.string == "\(number)")
            #expect(BlobReferences.blobDictionaries(root).count == 1)
        }
        #expect(try core.referencedBlobKeys().count == 2)
    }

    @Test func openingAMissingDatabaseWithoutCreateIsNotFound() throws {
        let directory = try TemporaryDirectory()
        #expect {
            try DatabaseCore(bundle: DatabaseBundle(name: "nothing", directory: directory.path),
                             registry: StorageEngineKind.sqlite.registry, engineName: nil, create: false)
        } throws: { ($0 as? DatabaseError)?.code == .notFound }
    }

    @Test func upgrade27DatabaseEnumeratesInKeyOrder() throws {
        let directory = try TemporaryDirectory()
        try Fixtures.copy("v2/upgrade_2.7.cblite2", into: directory)
        let core = try DatabaseCore(bundle: DatabaseBundle(name: "upgrade_2.7", directory: directory.path),
                                    registry: StorageEngineKind.sqlite.registry, engineName: nil, create: false)
        defer { try? core.close() }
        let all = try core.documents.enumerate(startKey: nil, endKey: nil,
                                                options: .init(includeDeleted: true)).collect()
        #expect(all.map(\.key) == (1...100).map { String(format: "doc-%03d", $0) })
        #expect(all.allSatisfy { $0.isDeleted == (Int($0.key.dropFirst(4)) ?? 0 > 50) })
        let descending = try core.documents.enumerate(startKey: nil, endKey: nil,
                                                       options: .init(includeDeleted: true, descending: true)).collect()
        #expect(descending.map(\.key) == all.map(\.key).reversed())
        let live = try core.documents.enumerate().collect()
        #expect(live.map(\.key) == (1...50).map { String(format: "doc-%03d", $0) })
    }

    @Test func upgrade27DatabaseOpensReadOnly() throws {
        let directory = try TemporaryDirectory()
        try Fixtures.copy("v2/upgrade_2.7.cblite2", into: directory)
        let core = try DatabaseCore(bundle: DatabaseBundle(name: "upgrade_2.7", directory: directory.path),
                                    registry: StorageEngineKind.sqlite.registry, engineName: nil,
                                    create: false, readOnly: true)
        defer { try? core.close() }
        #expect(try core.documentCount() == 50)
        #expect(throws: DatabaseError.self) {
            try core.saveRevision(id: "new", base: nil, policy: .failOnConflict) { $0.beginDictionary(); $0.endDictionary() }
        }
    }
}
