import Foundation
import Testing
import TestSupport
import Upgrader

/// How `_attachments` stubs in 1.x bodies become `LegacyAttachment`s, whatever their shape.
@Suite(.ownThreads) struct AttachmentStubTests {
    private func attachments(of body: String) throws -> [LegacyAttachment] {
        let directory = try TemporaryDirectory()
        let builder = try LegacyDatabaseBuilder(in: directory.url)
        let key = try builder.addDocument("doc")
        try builder.addRevision(document: key, revID: "1-abcd", current: true, json: body, noAttachments: false)
        builder.close()
        let reader = try LegacyDatabaseReader(bundlePath: builder.bundle.path)
        defer { reader.close() }
        return try #require(try reader.document(withID: "doc")).attachments
    }

    @Test func stubsAreSortedByNameWithTheirMetadata() throws {
        let read = try attachments(of: #"""
            {"_attachments":{"z.png":{"digest":"sha1-iTebnQazmdAhRBH64y9E6JqwSoc=","length":7,"content_type":"image/png"},
                             "a.txt":{"digest":"sha1-P1i5kI/sosq745/9BDR7kEghKps=","length":3}}}
            """#)
        #expect(read.map(\.name) == ["a.txt", "z.png"])
        #expect(read.map(\.length) == [3, 7])
        #expect(read.map(\.contentType) == [nil, "image/png"])
    }

    @Test func theHyphenatedContentTypeSpellingIsRead() throws {
        let read = try attachments(of: #"{"_attachments":{"a":{"digest":"sha1-P1i5kI/sosq745/9BDR7kEghKps=","content-type":"text/plain"}}}"#)
        #expect(read.first?.contentType == "text/plain")
    }

    @Test func anIntegralFloatingPointLengthIsRead() throws {
        let read = try attachments(of: #"{"_attachments":{"a":{"digest":"sha1-P1i5kI/sosq745/9BDR7kEghKps=","length":7.0}}}"#)
        #expect(read.first?.length == 7)
    }

    @Test func entriesThatAreNotObjectsAreIgnored() throws {
        let read = try attachments(of: #"{"_attachments":{"bad":"text","also":[1],"good":{"digest":"sha1-P1i5kI/sosq745/9BDR7kEghKps="}}}"#)
        #expect(read.map(\.name) == ["good"])
    }

    @Test func anAttachmentsValueThatIsNotAnObjectMeansNone() throws {
        #expect(try attachments(of: #"{"_attachments":[1,2,3],"x":1}"#).isEmpty)
    }

    @Test func aStubWithoutADigestHasNoFile() throws {
        let read = try attachments(of: #"{"_attachments":{"a":{"length":1}}}"#)
        #expect(read.first?.digest == nil)
        #expect(read.first?.fileURL == nil)
    }
}
