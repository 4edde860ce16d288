import BlobStore
import Foundation
import Testing
import TestSupport

/// Blob files written by the real Couchbase Lite 2.0 and 1.x.
@Suite(.ownThreads) struct BlobStoreFixtureTests {
    private static let attach1 = "sha1-P1i5kI/sosq745/9BDR7kEghKps="
    private static let attach2 = "sha1-iTebnQazmdAhRBH64y9E6JqwSoc="

    @Test func couchbaseLite2AttachmentsReadBackVerified() throws {
        let directory = try TemporaryDirectory()
        let bundle = try Fixtures.copy("v2/android200-sqlite/android-sqlite.cblite2", into: directory)
        let store = BlobStore(directory: bundle.appendingPathComponent("Attachments"))
        let one = try BlobKey(Self.attach1)
        let two = try BlobKey(Self.attach2)
        #expect(try store.allKeys() == [one, two].sorted())
        #expect(try store.data(for: one, expectedLength: 7) == Data("attach1".utf8))
        #expect(try store.data(for: two, expectedLength: 7) == Data("attach2".utf8))
    }

    @Test func couchbaseLite2FileNamesMatchTheirContent() throws {
        let attachments = try Fixtures.url("v2/android200-sqlite/android-sqlite.cblite2/Attachments")
        let names = try FileManager.default.contentsOfDirectory(atPath: attachments.path).sorted()
        #expect(names == ["P1i5kI_sosq745_9BDR7kEghKps=.blob", "iTebnQazmdAhRBH64y9E6JqwSoc=.blob"])
        for name in names {
            let content = try Data(contentsOf: attachments.appendingPathComponent(name))
            #expect(try BlobKey(fileName: name) == (try TestContent.referenceKey(Array(content))))
        }
    }

    @Test func newStoreNamesFilesExactlyAsCouchbaseLite2Did() throws {
        let directory = try TemporaryDirectory()
        let store = TestContent.store(in: directory)
        try store.write(Data("attach1".utf8))
        try store.write(Data("attach2".utf8))
        let fixture = try Fixtures.url("v2/android200-sqlite/android-sqlite.cblite2/Attachments")
        #expect(try TestContent.fileNames(in: store)
            == FileManager.default.contentsOfDirectory(atPath: fixture.path).sorted())
    }

    /// The 1.x fixtures and the blob digests LiteCore's upgrader test expects after upgrading.
    static let legacyCases: [(fixture: String, attachments: String, blobs: [String])] = {
        guard let data = try? Fixtures.data("v1/expectations.json"),
              let root = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let upgrader = root["litecore_UpgraderTest"] as? [String: Any],
              let cases = upgrader["cases"] as? [[String: Any]] else { return [] }
        return cases.compactMap { entry in
            guard let fixture = entry["fixture"] as? String,
                  let blobs = entry["blobs"] as? [String], !blobs.isEmpty else { return nil }
            return (fixture, fixture + "/attachments", blobs)
        }
    }()

    @Test func expectationsNameLegacyFixturesWithAttachments() {
        #expect(Self.legacyCases.count >= 4)
    }

    @Test(arguments: legacyCases.map(\.fixture))
    func legacyAttachmentsImportUnderTheDigestsTheUpgraderExpects(fixture: String) throws {
        let expected = try #require(Self.legacyCases.first { $0.fixture == fixture })
        let directory = try TemporaryDirectory()
        let legacyFolder = try Fixtures.copy(expected.attachments, into: directory)
        let store = TestContent.store(in: directory)
        let names = try FileManager.default.contentsOfDirectory(atPath: legacyFolder.path)
            .filter { $0.hasSuffix(".blob") }
        for name in names {
            try store.importLegacyAttachment(at: legacyFolder.appendingPathComponent(name))
        }
        let keys = try expected.blobs.map { try BlobKey($0) }
        #expect(try store.allKeys() == keys.sorted())
        for key in keys {
            let content = try store.data(for: key)
            #expect(content.count > 0)
            #expect(key == (try TestContent.referenceKey(Array(content))))
        }
    }

    @Test func legacyAttachmentImportsByKeyFromItsFolder() throws {
        let directory = try TemporaryDirectory()
        let bundle = try Fixtures.copy("v1/ios130/iosdb.cblite2", into: directory)
        let store = TestContent.store(in: directory)
        let key = try BlobKey(Self.attach2)
        try store.importLegacyAttachment(key, fromDirectory: bundle.appendingPathComponent("attachments"))
        #expect(try store.data(for: key, expectedLength: 7) == Data("attach2".utf8))
    }

    @Test func earliestLowercaseLegacyNamesImport() throws {
        let directory = try TemporaryDirectory()
        let legacyFolder = try Fixtures.copy("v1/android104/androiddb/attachments", into: directory)
        let store = TestContent.store(in: directory)
        let key = try BlobKey(legacyFileName: "fcc1350f03cad8acfc7c13bf8e1cc70485825bda.blob")
        try store.importLegacyAttachment(key, fromDirectory: legacyFolder)
        #expect(try store.data(for: key).count == 9)
    }
}
