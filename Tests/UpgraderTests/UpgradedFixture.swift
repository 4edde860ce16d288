import BlobStore
import CouchbaseLiteSwift
import Foundation
import LiteDatabase
import LiteStorage
import Testing
import TestSupport
import Upgrader

/// A writable copy of a 1.x fixture bundle, opened and checked through the public API.
struct UpgradedFixture {
    /// The fixtures LiteCore's upgrader test upgrades.
    static let upgradable = ["ios120", "ios130", "android120", "android130", "net120", "net130"]

    /// The copied bundle (`…/iosdb.cblite2`).
    let bundle: URL
    /// The fixture folder name (`ios120`).
    let fixture: String

    /// Copies the 1.x bundle of `fixture` into `directory`.
    init(_ fixture: String, in directory: TemporaryDirectory) throws {
        self.fixture = fixture
        bundle = try FixtureCopies.legacyBundle(fixture, into: directory)
    }

    /// The database name the bundle opens as.
    var name: String { bundle.deletingPathExtension().lastPathComponent }
    /// The folder holding the bundle.
    var directory: String { bundle.deletingLastPathComponent().path }
    /// The staging folder an upgrade builds in.
    var stagingPath: String { bundle.path + LegacyUpgrader.stagingSuffix }
    /// The bundle as the core names it.
    var databaseBundle: DatabaseBundle { DatabaseBundle(name: name, directory: directory) }

    /// A public configuration for the bundle's folder, writing with `engine`.
    func configuration(_ engine: StorageEngineKind, upgrades: Bool = true) -> DatabaseConfiguration {
        let config = DatabaseConfiguration()
        config.directory = directory
        config.storageEngine = engine == .sqlite ? .sqlite : .rocksdb
        config.upgradesLegacyDatabases = upgrades
        return config
    }

    /// The engines the public API registers, for opening the core directly.
    static let registry = StorageEngineRegistry(engines: [StorageEngineKind.sqlite.engine, StorageEngineKind.rocksdb.engine])

    /// Opens the (upgraded) database with the public API and checks every expectation of
    /// `v1/expectations.json`: exact body JSON, blobs with the right digest and content; then
    /// the revision histories through the core.
    func expectUpgradedContents(_ engine: StorageEngineKind) throws {
        let expected = try FixtureExpectations.case(fixture)
        let database = try Database(name: name, config: configuration(engine))
        #expect(database.storageEngine == (engine == .sqlite ? .sqlite : .rocksdb))
        #expect(database.count == UInt64(expected.docs.count))
        var digestsSeen: Set<String> = []
        for doc in expected.docs {
            let document = try #require(database.document(withID: doc.id), "document \(doc.id) of \(fixture)")
            #expect(document.toJSON() == doc.body, "body of \(doc.id) in \(fixture)")
            let attachments = try #require(document.dictionary(forKey: "_attachments"))
            for name in attachments.keys {
                let blob = try #require(attachments.blob(forKey: name), "blob \(name) of \(doc.id)")
                let content = try #require(blob.content, "content of \(name) of \(doc.id) in \(fixture)")
                let digest = "sha1-" + Data(ReferenceSHA1.digest(Array(content))).base64EncodedString()
                #expect(digest == blob.digest)
                #expect(Int64(content.count) == attachments.dictionary(forKey: name)?.int64(forKey: "length"))
                digestsSeen.insert(digest)
            }
        }
        #expect(digestsSeen == Set(expected.blobs))
        try database.close()

        let core = try DatabaseCore(bundle: databaseBundle, registry: Self.registry, engineName: nil, create: false)
        defer { try? core.close() }
        for doc in expected.docs {
            let stored = try #require(try core.document(id: doc.id))
            #expect(stored.tree.history(from: 0).map(\.id.string) == doc.history, "history of \(doc.id) in \(fixture)")
            #expect(stored.flags.contains(.hasAttachments), "has-attachments flag of \(doc.id) in \(fixture)")
            #expect(!stored.isDeleted)
        }
        for digest in expected.blobs {
            #expect(core.blobStore.contains(try BlobKey(digest)), "blob \(digest) in \(fixture)")
        }
    }
}
