import Foundation
import Testing
import TestSupport
import Upgrader

/// Which revision of a 1.x document is migrated, with which history, and what is skipped.
@Suite(.ownThreads) struct WinningRevisionTests {
    private static func revID(_ generation: Int, _ digit: Character) -> String {
        "\(generation)-" + String(repeating: digit, count: 32)
    }

    /// Builds a database with `build`, then reads every document.
    private func documents(_ build: (LegacyDatabaseBuilder) throws -> Void) throws -> [LegacyDocument] {
        let directory = try TemporaryDirectory()
        let builder = try LegacyDatabaseBuilder(in: directory.url)
        try build(builder)
        builder.close()
        let reader = try LegacyDatabaseReader(bundlePath: builder.bundle.path)
        defer { reader.close() }
        return try reader.readAllDocuments()
    }

    @Test func theHigherGenerationWinsNumericallyNotAsText() throws {
        let read = try documents { db in
            let key = try db.addDocument("doc")
            try db.addRevision(document: key, revID: Self.revID(9, "f"), current: true, json: #"{"v":9}"#)
            try db.addRevision(document: key, revID: Self.revID(10, "0"), current: true, json: #"{"v":10}"#)
        }
        #expect(read.first?.revisionID.string == Self.revID(10, "0"))
        #expect(read.first.map { String(decoding: $0.body, as: UTF8.self) } == #"{"v":10}"#)
    }

    @Test func withinAGenerationTheHigherDigestWins() throws {
        let read = try documents { db in
            let key = try db.addDocument("doc")
            try db.addRevision(document: key, revID: Self.revID(2, "b"), current: true, json: "{}")
            try db.addRevision(document: key, revID: Self.revID(2, "c"), current: true, json: "{}")
            try db.addRevision(document: key, revID: Self.revID(2, "a"), current: true, json: "{}")
        }
        #expect(read.first?.revisionID.string == Self.revID(2, "c"))
    }

    @Test func aLiveLeafWinsOverAHigherDeletedLeaf() throws {
        let read = try documents { db in
            let key = try db.addDocument("doc")
            try db.addRevision(document: key, revID: Self.revID(5, "f"), current: true, deleted: true, json: "{}")
            try db.addRevision(document: key, revID: Self.revID(2, "a"), current: true, json: #"{"live":true}"#)
        }
        #expect(read.first?.revisionID.string == Self.revID(2, "a"))
        #expect(read.first?.isDeleted == false)
    }

    @Test func aDocumentWhoseLeavesAreAllDeletedIsADeletedDocument() throws {
        let read = try documents { db in
            let key = try db.addDocument("gone")
            let first = try db.addRevision(document: key, revID: Self.revID(1, "a"), current: false, json: #"{"x":1}"#)
            try db.addRevision(document: key, revID: Self.revID(2, "b"), parent: first, current: true,
                               deleted: true, json: nil)
        }
        let document = try #require(read.first)
        #expect(document.isDeleted)
        #expect(String(decoding: document.body, as: UTF8.self) == "{}")
        #expect(document.history.map(\.string) == [Self.revID(2, "b"), Self.revID(1, "a")])
    }

    @Test func theHistoryFollowsParentsOfTheWinnerOnly() throws {
        let read = try documents { db in
            let key = try db.addDocument("doc")
            let one = try db.addRevision(document: key, revID: Self.revID(1, "a"), current: false, json: nil)
            let two = try db.addRevision(document: key, revID: Self.revID(2, "a"), parent: one, current: false, json: nil)
            try db.addRevision(document: key, revID: Self.revID(3, "a"), parent: two, current: true, json: "{}")
            // A losing branch from generation 1: not part of the winner's history.
            let losing = try db.addRevision(document: key, revID: Self.revID(2, "0"), parent: one, current: false, json: nil)
            try db.addRevision(document: key, revID: Self.revID(3, "0"), parent: losing, current: true, json: "{}")
        }
        #expect(read.first?.history.map(\.string) == [Self.revID(3, "a"), Self.revID(2, "a"), Self.revID(1, "a")])
    }

    @Test func aPrunedAncestorEndsTheHistory() throws {
        let read = try documents { db in
            let key = try db.addDocument("doc")
            let one = try db.addRevision(document: key, revID: Self.revID(1, "a"), current: false, json: nil)
            let two = try db.addRevision(document: key, revID: Self.revID(2, "a"), parent: one, current: false, json: nil)
            try db.addRevision(document: key, revID: Self.revID(3, "a"), parent: two, current: true, json: "{}")
            try db.execute("DELETE FROM revs WHERE sequence = \(one)")
        }
        #expect(read.first?.history.map(\.string) == [Self.revID(3, "a"), Self.revID(2, "a")])
    }

    @Test func documentsStartingWithAnUnderscoreAreSkipped() throws {
        let directory = try TemporaryDirectory()
        let builder = try LegacyDatabaseBuilder(in: directory.url)
        try builder.addSimpleDocument("_design/views")
        try builder.addSimpleDocument("kept")
        builder.close()
        let reader = try LegacyDatabaseReader(bundlePath: builder.bundle.path)
        defer { reader.close() }
        #expect(try reader.readAllDocuments().map(\.id) == ["kept"])
        #expect(try reader.documentCount() == 1)
        #expect(try reader.skippedDocumentIDs() == ["_design/views"])
    }

    @Test func aDocumentWithoutRevisionsIsPassedOver() throws {
        let read = try documents { db in
            try db.addDocument("empty")
            try db.addSimpleDocument("full")
        }
        #expect(read.map(\.id) == ["full"])
    }

    @Test func noAttachmentsFlagBecomesHasAttachments() throws {
        let read = try documents { db in
            let with = try db.addDocument("with")
            try db.addRevision(document: with, revID: Self.revID(1, "a"), current: true, json: "{}", noAttachments: false)
            try db.addSimpleDocument("without")
        }
        #expect(read.map(\.hasAttachments) == [true, false])
    }

    @Test func anAttachmentWhoseFileIsMissingIsReportedAsMissing() throws {
        let body = #"{"_attachments":{"a.txt":{"digest":"sha1-P1i5kI/sosq745/9BDR7kEghKps=","length":7,"stub":true}}}"#
        let read = try documents { db in
            let key = try db.addDocument("doc")
            try db.addRevision(document: key, revID: Self.revID(1, "a"), current: true, json: body, noAttachments: false)
        }
        let attachment = try #require(read.first?.attachments.first)
        #expect(attachment.fileURL?.lastPathComponent == "3F58B9908FECA2CABBE39FFD04347B9048212A9B.blob")
        #expect(!attachment.isFilePresent)
    }

    @Test func anAttachmentWithANonSHA1DigestHasNoFile() throws {
        let body = #"{"_attachments":{"old":{"digest":"md5-AAAAAAAAAAAAAAAAAAAAAA==","length":1}}}"#
        let read = try documents { db in
            let key = try db.addDocument("doc")
            try db.addRevision(document: key, revID: Self.revID(1, "a"), current: true, json: body, noAttachments: false)
        }
        let attachment = try #require(read.first?.attachments.first)
        #expect(attachment.digest == "md5-AAAAAAAAAAAAAAAAAAAAAA==")
        #expect(attachment.sha1 == nil && attachment.fileURL == nil && !attachment.isFilePresent)
    }
}
