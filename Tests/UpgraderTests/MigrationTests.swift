import BlobStore
import Foundation
import LiteDatabase
import Testing
import TestSupport
@testable import Upgrader

/// What the migration copies, skips and reports, on 1.x databases built for each case.
@Suite(.ownThreads) struct MigrationTests {
    private func convert(_ legacy: LegacyDatabaseBuilder, in directory: TemporaryDirectory,
                         engine: StorageEngineKind) throws -> (DatabaseCore, UpgradeSummary) {
        legacy.close()
        let upgrader = LegacyUpgrader(registry: UpgradedFixture.registry, engineName: engine.engine.name)
        let destination = DatabaseBundle(name: "converted", directory: directory.appending("out").path)
        let summary = try upgrader.convert(legacyBundleAt: legacy.bundle.path, to: destination)
        let core = try DatabaseCore(bundle: destination, registry: UpgradedFixture.registry, engineName: nil, create: false)
        return (core, summary)
    }

    @Test(arguments: StorageEngineKind.allCases)
    func convertingWritesTheNewBundleAndLeavesTheSourceUntouched(engine: StorageEngineKind) throws {
        let directory = try TemporaryDirectory()
        let copy = try UpgradedFixture("net130", in: directory)
        let before = try FileSnapshot(of: copy.bundle)
        let destination = DatabaseBundle(name: "converted", directory: directory.appending("out").path)
        let summary = try LegacyUpgrader(registry: UpgradedFixture.registry, engineName: engine.engine.name)
            .convert(legacyBundleAt: copy.bundle.path, to: destination)
        #expect(try FileSnapshot(of: copy.bundle) == before)
        #expect(summary.documentCount == 2)
        #expect(summary.copiedBlobCount == 2)
        #expect(summary.engineName == engine.engine.name)
        #expect(summary.schemaVersion == 102)
        let core = try DatabaseCore(bundle: destination, registry: UpgradedFixture.registry, engineName: nil, create: false)
        defer { try? core.close() }
        #expect(core.engine.name == engine.engine.name)
        #expect(try core.documentCount() == 2)
        #expect(!FileManager.default.fileExists(atPath: destination.path.dropLast() + LegacyUpgrader.stagingSuffix))
    }

    @Test(arguments: StorageEngineKind.allCases)
    func documentsStillOnlyInThe1xWriteAheadLogAreMigrated(engine: StorageEngineKind) throws {
        let directory = try TemporaryDirectory()
        let legacy = try LegacyDatabaseBuilder(in: directory.url, walOnly: true)
        defer { legacy.close() }
        for index in 1...20 {
            try legacy.addSimpleDocument("doc-\(index)", json: #"{"n":\#(index)}"#)
        }
        let destination = DatabaseBundle(name: "converted", directory: directory.appending("out").path)
        try LegacyUpgrader(registry: UpgradedFixture.registry, engineName: engine.engine.name)
            .convert(legacyBundleAt: legacy.bundle.path, to: destination)
        let core = try DatabaseCore(bundle: destination, registry: UpgradedFixture.registry, engineName: nil, create: false)
        defer { try? core.close() }
        #expect(try core.documentCount() == 20)
        #expect(try core.document(id: "doc-20")?.body(sharedKeys: core.sharedKeys)?.root.json() == #"{"n":20}"#)
    }

    @Test func convertingOntoAnExistingDestinationIsRefused() throws {
        let directory = try TemporaryDirectory()
        let copy = try UpgradedFixture("net130", in: directory)
        let destination = DatabaseBundle(name: "taken", directory: directory.path)
        try FileManager.default.createDirectory(atPath: destination.path, withIntermediateDirectories: true)
        let error = #expect(throws: UpgraderError.self) {
            try LegacyUpgrader(registry: UpgradedFixture.registry, engineName: nil)
                .convert(legacyBundleAt: copy.bundle.path, to: destination)
        }
        #expect(error?.code == .upgradeFailed)
        #expect(error?.message.contains("exists") == true)
    }

    @Test(arguments: StorageEngineKind.allCases)
    func underscoreDocumentsAreSkippedAndListedInTheSummary(engine: StorageEngineKind) throws {
        let directory = try TemporaryDirectory()
        let legacy = try LegacyDatabaseBuilder(in: directory.url)
        try legacy.addSimpleDocument("_design/views", json: #"{"views":{}}"#)
        try legacy.addSimpleDocument("kept")
        let (core, summary) = try convert(legacy, in: directory, engine: engine)
        defer { try? core.close() }
        #expect(summary.skippedDocumentIDs == ["_design/views"])
        #expect(summary.documentCount == 1)
        #expect(try core.document(id: "_design/views") == nil)
        #expect(try core.document(id: "kept") != nil)
    }

    @Test(arguments: StorageEngineKind.allCases)
    func aDeletedDocumentStaysDeletedWithItsHistory(engine: StorageEngineKind) throws {
        let directory = try TemporaryDirectory()
        let legacy = try LegacyDatabaseBuilder(in: directory.url)
        let key = try legacy.addDocument("gone")
        let first = try legacy.addRevision(document: key, revID: "1-aa", current: false, json: #"{"a":1}"#)
        try legacy.addRevision(document: key, revID: "2-bb", parent: first, current: true, deleted: true, json: nil)
        let (core, _) = try convert(legacy, in: directory, engine: engine)
        defer { try? core.close() }
        let document = try #require(try core.document(id: "gone"))
        #expect(document.isDeleted)
        #expect(document.tree.history(from: 0).map(\.id.string) == ["2-bb", "1-aa"])
        #expect(try core.documentCount() == 0)
    }

    @Test(arguments: StorageEngineKind.allCases)
    func onlyTheWinningBranchIsCopied(engine: StorageEngineKind) throws {
        let directory = try TemporaryDirectory()
        let legacy = try LegacyDatabaseBuilder(in: directory.url)
        let key = try legacy.addDocument("conflicted")
        let root = try legacy.addRevision(document: key, revID: "1-aa", current: false, json: #"{"v":1}"#)
        try legacy.addRevision(document: key, revID: "2-bb", parent: root, current: true, json: #"{"v":"loser"}"#)
        try legacy.addRevision(document: key, revID: "2-cc", parent: root, current: true, json: #"{"v":"winner"}"#)
        let (core, _) = try convert(legacy, in: directory, engine: engine)
        defer { try? core.close() }
        let document = try #require(try core.document(id: "conflicted"))
        #expect(document.tree.revisions.map(\.id.string).sorted() == ["1-aa", "2-cc"])
        #expect(try document.body(sharedKeys: core.sharedKeys)?.root.json() == #"{"v":"winner"}"#)
    }

    @Test(arguments: StorageEngineKind.allCases)
    func aMissingAttachmentFileIsReportedAndTheStubKept(engine: StorageEngineKind) throws {
        let directory = try TemporaryDirectory()
        let legacy = try LegacyDatabaseBuilder(in: directory.url)
        let present = Array("present".utf8)
        let presentDigest = "sha1-" + Data(ReferenceSHA1.digest(present)).base64EncodedString()
        try Data(present).write(to: legacy.bundle.appendingPathComponent("attachments")
            .appendingPathComponent(LegacyAttachment.blobFileName(sha1: ReferenceSHA1.digest(present))))
        let lostDigest = "sha1-" + Data(ReferenceSHA1.digest(Array("lost".utf8))).base64EncodedString()
        let body = #"{"_attachments":{"a":{"digest":"\#(presentDigest)","length":7,"stub":true},"#
            + #""b":{"digest":"\#(lostDigest)","length":4,"stub":true}}}"#
        let key = try legacy.addDocument("doc")
        try legacy.addRevision(document: key, revID: "1-aa", current: true, json: body, noAttachments: false)
        let (core, summary) = try convert(legacy, in: directory, engine: engine)
        defer { try? core.close() }
        #expect(summary.copiedBlobCount == 1)
        #expect(summary.missingAttachments.map(\.digest) == [lostDigest])
        #expect(summary.missingAttachments.first?.documentID == "doc")
        #expect(core.blobStore.contains(try BlobKey(presentDigest)))
        #expect(try core.blobStore.data(for: BlobKey(presentDigest)) == Data(present))
        let stored = try #require(try core.document(id: "doc")?.body(sharedKeys: core.sharedKeys))
        #expect(stored.root.dictionary?["_attachments"]?.dictionary?["b"] != nil)
    }

    @Test func anAttachmentIsCopiedEvenWhen1xRecordedNoAttachments() throws {
        let directory = try TemporaryDirectory()
        let legacy = try LegacyDatabaseBuilder(in: directory.url)
        let content = Array("content".utf8)
        let digest = "sha1-" + Data(ReferenceSHA1.digest(content)).base64EncodedString()
        try Data(content).write(to: legacy.bundle.appendingPathComponent("attachments")
            .appendingPathComponent(LegacyAttachment.blobFileName(sha1: ReferenceSHA1.digest(content))))
        let key = try legacy.addDocument("doc")
        try legacy.addRevision(document: key, revID: "1-aa", current: true,
                               json: #"{"_attachments":{"a":{"digest":"\#(digest)","length":7,"stub":true}}}"#,
                               noAttachments: true)
        let (core, summary) = try convert(legacy, in: directory, engine: .sqlite)
        defer { try? core.close() }
        #expect(summary.copiedBlobCount == 1)
        #expect(try core.blobStore.data(for: BlobKey(digest)) == Data(content))
    }

    @Test(arguments: StorageEngineKind.allCases)
    func aHistoryLongerThanTheTreeDepthIsPrunedToTheNewestRevisions(engine: StorageEngineKind) throws {
        let directory = try TemporaryDirectory()
        let legacy = try LegacyDatabaseBuilder(in: directory.url)
        let key = try legacy.addDocument("long")
        var parent: Int64?
        for generation in 1...30 {
            parent = try legacy.addRevision(document: key, revID: "\(generation)-0\(generation % 10)",
                                            parent: parent, current: generation == 30, json: #"{"g":\#(generation)}"#)
        }
        let (core, _) = try convert(legacy, in: directory, engine: engine)
        defer { try? core.close() }
        let history = try #require(try core.document(id: "long")).tree.history(from: 0).map(\.id.generation)
        #expect(history.first == 30)
        #expect(history == Array((31 - UInt64(history.count)...30).reversed()))
        #expect(history.count >= DatabaseCore.defaultMaxRevTreeDepth)
    }
}
