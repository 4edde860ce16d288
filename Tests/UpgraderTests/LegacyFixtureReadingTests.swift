import Foundation
import Testing
import TestSupport
import Upgrader

/// The real 1.x databases from iOS, Android and .NET read exactly as LiteCore's upgrader test
/// expects (`v1/expectations.json`).
@Suite(.ownThreads) struct LegacyFixtureReadingTests {
    static let fixtures = ["ios120", "ios130", "android120", "android130", "net120", "net130"]

    private func read(_ name: String) throws -> (documents: [LegacyDocument], expected: FixtureExpectations.Case) {
        let directory = try TemporaryDirectory()
        let bundle = try FixtureCopies.legacyBundle(name, into: directory)
        let reader = try LegacyDatabaseReader(bundlePath: bundle.path)
        defer { reader.close() }
        return (try reader.readAllDocuments(), try FixtureExpectations.case(name))
    }

    @Test(arguments: fixtures)
    func documentIDsAreExactlyTheExpectedOnes(fixture: String) throws {
        let (documents, expected) = try read(fixture)
        #expect(documents.map(\.id) == expected.docs.map(\.id))
    }

    @Test(arguments: fixtures)
    func bodiesAreTheStoredJSONUnchanged(fixture: String) throws {
        let (documents, expected) = try read(fixture)
        for (document, want) in zip(documents, expected.docs) {
            #expect(String(decoding: document.body, as: UTF8.self) == want.body, "\(document.id)")
            let ours = try JSONSerialization.jsonObject(with: Data(document.body)) as? NSDictionary
            let theirs = try JSONSerialization.jsonObject(with: Data(want.body.utf8)) as? NSDictionary
            #expect(ours != nil && ours == theirs, "\(document.id)")
        }
    }

    @Test(arguments: fixtures)
    func bodiesKeepTheirKeyOrder(fixture: String) throws {
        let (documents, expected) = try read(fixture)
        for (document, want) in zip(documents, expected.docs) {
            #expect(JSONKeyOrder.keys(document.body) == JSONKeyOrder.keys(want.body), "\(document.id)")
        }
    }

    @Test(arguments: fixtures)
    func historiesListTheCurrentRevisionThenItsAncestors(fixture: String) throws {
        let (documents, expected) = try read(fixture)
        for (document, want) in zip(documents, expected.docs) {
            #expect(document.history.map(\.string) == want.history, "\(document.id)")
            #expect(document.revisionID.string == want.history.first)
        }
    }

    @Test(arguments: fixtures)
    func attachmentDigestsAreTheExpectedBlobs(fixture: String) throws {
        let (documents, expected) = try read(fixture)
        let digests = documents.flatMap(\.attachments).compactMap(\.digest)
        #expect(Set(digests) == Set(expected.blobs))
        #expect(documents.allSatisfy { $0.hasAttachments && !$0.isDeleted })
    }

    @Test(arguments: fixtures)
    func attachmentFilesArePresentWithContentMatchingTheirDigest(fixture: String) throws {
        let directory = try TemporaryDirectory()
        let bundle = try FixtureCopies.legacyBundle(fixture, into: directory)
        let reader = try LegacyDatabaseReader(bundlePath: bundle.path)
        defer { reader.close() }
        let attachments = try reader.readAllDocuments().flatMap(\.attachments)
        #expect(!attachments.isEmpty)
        for attachment in attachments {
            let url = try #require(attachment.fileURL)
            #expect(attachment.isFilePresent)
            #expect(url.deletingLastPathComponent().lastPathComponent == "attachments")
            let contents = Array(try Data(contentsOf: url))
            #expect(ReferenceSHA1.digest(contents) == attachment.sha1, "\(attachment.name)")
            #expect(contents.count == attachment.length, "\(attachment.name)")
        }
    }

    @Test func attachmentMetadataComesFromTheStub() throws {
        let (documents, _) = try read("ios130")
        let attachment = try #require(documents.first?.attachments.first)
        #expect(attachment.name == "attach1")
        #expect(attachment.contentType == "text/plain; charset=utf-8")
        #expect(attachment.length == 7)
        #expect(attachment.fileURL?.lastPathComponent == "3F58B9908FECA2CABBE39FFD04347B9048212A9B.blob")
    }

    @Test(arguments: fixtures)
    func readingLeavesTheBundleByteForByteUnchanged(fixture: String) throws {
        let directory = try TemporaryDirectory()
        let bundle = try FixtureCopies.legacyBundle(fixture, into: directory)
        let before = try FileSnapshot(of: bundle)
        let reader = try LegacyDatabaseReader(bundlePath: bundle.path)
        _ = try reader.readAllDocuments()
        #expect(try FileSnapshot(of: bundle) == before, "while open")
        reader.close()
        #expect(try FileSnapshot(of: bundle) == before, "after close")
    }

    @Test func schemaVersionIsReadFromTheDatabase() throws {
        let first = try TemporaryDirectory(), second = try TemporaryDirectory()
        let v12 = try LegacyDatabaseReader(bundlePath: FixtureCopies.legacyBundle("net120", into: first).path)
        let v13 = try LegacyDatabaseReader(bundlePath: FixtureCopies.legacyBundle("net130", into: second).path)
        #expect(v12.schemaVersion == 101)
        #expect(v13.schemaVersion == 102)
    }

    @Test func documentCountMatchesTheDocumentsRead() throws {
        let directory = try TemporaryDirectory()
        let reader = try LegacyDatabaseReader(bundlePath: FixtureCopies.legacyBundle("android130", into: directory).path)
        #expect(try reader.documentCount() == 2)
        #expect(try reader.readAllDocuments().count == 2)
    }

    @Test func aDocumentCanBeReadByID() throws {
        let directory = try TemporaryDirectory()
        let reader = try LegacyDatabaseReader(bundlePath: FixtureCopies.legacyBundle("ios120", into: directory).path)
        let document = try #require(try reader.document(withID: "doc2"))
        #expect(document.id == "doc2")
        #expect(try reader.document(withID: "no-such-doc") == nil)
    }

    @Test func closingRemovesThePrivateCopy() throws {
        let directory = try TemporaryDirectory()
        let scratch = try TemporaryDirectory()
        let reader = try LegacyDatabaseReader(bundlePath: FixtureCopies.legacyBundle("ios130", into: directory).path,
                                              temporaryDirectory: scratch.url)
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path).count == 1)
        reader.close()
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path).isEmpty)
    }

    @Test func aRenamedDatabaseFileIsReadWithAttachmentsBesideIt() throws {
        let directory = try TemporaryDirectory()
        let bundle = try FixtureCopies.legacyBundle("android120", into: directory)
        let renamed = bundle.appendingPathComponent("old-app.sqlite3")
        try FileManager.default.moveItem(at: bundle.appendingPathComponent("db.sqlite3"), to: renamed)
        let reader = try LegacyDatabaseReader(bundlePath: renamed.path)
        defer { reader.close() }
        let documents = try reader.readAllDocuments()
        #expect(documents.map(\.id) == ["doc1", "doc2"])
        #expect(documents.flatMap(\.attachments).allSatisfy { $0.isFilePresent })
    }
}
