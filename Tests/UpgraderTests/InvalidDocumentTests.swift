import Foundation
import Testing
import TestSupport
import Upgrader

/// A document whose revision ID or body is invalid stops the read with an error naming it.
@Suite(.ownThreads) struct InvalidDocumentTests {
    private func error(reading build: (LegacyDatabaseBuilder) throws -> Void) throws -> UpgraderError? {
        let directory = try TemporaryDirectory()
        let builder = try LegacyDatabaseBuilder(in: directory.url)
        try builder.addSimpleDocument("fine")
        try build(builder)
        builder.close()
        let reader = try LegacyDatabaseReader(bundlePath: builder.bundle.path)
        defer { reader.close() }
        do {
            _ = try reader.readAllDocuments()
            return nil
        } catch let error as UpgraderError {
            return error
        }
    }

    @Test(arguments: ["1-ABCDEF", "1-abc", "x-abcd", "0-abcd", "-abcd", "2-", "3", "1-zz"])
    func aBadCurrentRevisionIDNamesTheDocument(revID: String) throws {
        let failure = try #require(try error { db in
            let key = try db.addDocument("broken")
            try db.addRevision(document: key, revID: revID, current: true, json: "{}")
        })
        #expect(failure.code == .invalidRevisionID)
        #expect(failure.documentID == "broken")
        #expect(failure.message.contains("\"broken\""))
        #expect(failure.message.contains(revID))
    }

    @Test func aBadAncestorRevisionIDNamesTheDocument() throws {
        let failure = try #require(try error { db in
            let key = try db.addDocument("broken")
            let parent = try db.addRevision(document: key, revID: "1-XYZ", current: false, json: nil)
            try db.addRevision(document: key, revID: "2-abcd", parent: parent, current: true, json: "{}")
        })
        #expect(failure.code == .invalidRevisionID)
        #expect(failure.documentID == "broken")
    }

    @Test(arguments: [#"{"a":"#, "not json", #"["an","array"]"#, "42", #"{"a":1}}"#])
    func aBodyThatIsNotAJSONObjectNamesTheDocument(json: String) throws {
        let failure = try #require(try error { db in
            try db.addSimpleDocument("bad-body", json: json)
        })
        #expect(failure.code == .invalidBody)
        #expect(failure.documentID == "bad-body")
        #expect(failure.message.contains("\"bad-body\""))
    }

    @Test func aBodyWithInvalidUTF8NamesTheDocument() throws {
        let failure = try #require(try error { db in
            let key = try db.addDocument("bad-utf8")
            try db.addRevision(document: key, revID: "1-abcd", current: true, json: "{}")
            try db.execute("UPDATE revs SET json = X'7B2261223A2280FF227D' WHERE doc_id = \(key)")
        })
        #expect(failure.code == .invalidBody)
        #expect(failure.documentID == "bad-utf8")
    }

    @Test func aLiveRevisionWithoutABodyNamesTheDocument() throws {
        let failure = try #require(try error { db in
            let key = try db.addDocument("no-body")
            try db.addRevision(document: key, revID: "1-abcd", current: true, json: nil)
        })
        #expect(failure.code == .invalidBody)
        #expect(failure.documentID == "no-body")
    }

    @Test func aParentThatIsNotAnOlderGenerationIsCorrupt() throws {
        let failure = try #require(try error { db in
            let key = try db.addDocument("looped")
            let parent = try db.addRevision(document: key, revID: "5-abcd", current: false, json: nil)
            try db.addRevision(document: key, revID: "2-abcd", parent: parent, current: true, json: "{}")
        })
        #expect(failure.code == .corrupt)
        #expect(failure.documentID == "looped")
    }

    @Test func aParentInAnotherDocumentIsCorrupt() throws {
        let failure = try #require(try error { db in
            let other = try db.addDocument("other")
            let foreign = try db.addRevision(document: other, revID: "1-abcd", current: true, json: "{}")
            let key = try db.addDocument("crossed")
            try db.addRevision(document: key, revID: "2-abcd", parent: foreign, current: true, json: "{}")
        })
        #expect(failure.code == .corrupt)
        #expect(failure.documentID == "crossed")
    }
}
