import CouchbaseLiteSwift
import Fleece
import Foundation
import LiteStorage
import Testing
import TestSupport
@testable import LiteDatabase

/// A real Couchbase Lite 2.8 file with a value index (`index1` on firstName, lastName, a SQLite
/// expression index over `fl_value`): saving, updating and deleting work, and SQLite's own
/// integrity check — which recomputes every index entry from its expression — finds the index
/// exactly right afterwards, so real Couchbase Lite can keep using it.
@Suite(.ownThreads) struct RealIndexedDatabaseTests {
    private func json(_ text: String) -> (FleeceEncoder) throws -> Void {
        { encoder in try Array(text.utf8).withUnsafeBytes { try JSONConverter.write(json: $0, to: encoder) } }
    }

    @Test func writesKeepACouchbaseLite28ValueIndexValid() throws {
        let directory = try TemporaryDirectory()
        try Fixtures.copy("v2/upgrade_2.8_index.cblite2", into: directory)
        let core = try DatabaseCore(bundle: DatabaseBundle(name: "upgrade_2.8_index", directory: directory.path),
                                    registry: StorageEngineRegistry(engines: [StorageEngineKind.sqlite.engine]),
                                    engineName: nil, create: false)
        defer { try? core.close() }
        #expect(try core.dataFile.foreignIndexes().map(\.name) == ["index1"])
        let existing = try core.documents.enumerate(options: RecordEnumerationOptions()).collect().map(\.key)
        #expect(existing.count == 2)

        try core.saveRevision(id: "new", base: nil, policy: .failOnConflict, encodeBody: json(#"{"firstName":"Zed","lastName":"Zulu"}"#))
        let first = try #require(try core.document(id: existing[0]))
        try core.saveRevision(id: existing[0], base: first.revisionID, policy: .failOnConflict,
                              encodeBody: json(#"{"firstName":"Ann","lastName":"Changed","tags":["a",1,null,true]}"#))
        let second = try #require(try core.document(id: existing[1]))
        try core.saveRevision(id: existing[1], base: second.revisionID, deleted: true, policy: .failOnConflict) { _ in }
        try core.purgeDocument(id: "new")
        try core.saveRevision(id: "again", base: nil, policy: .failOnConflict, encodeBody: json(#"{"lastName":"Only"}"#))

        #expect(try core.checkIntegrity() == [])
        #expect(try core.documentCount() == 2)
    }

    @Test func aSaveThroughThePublicAPIWorksOnTheIndexedFile() throws {
        let directory = try TemporaryDirectory()
        try Fixtures.copy("v2/upgrade_2.8_index.cblite2", into: directory)
        let config = DatabaseConfiguration()
        config.directory = directory.path
        let database = try Database(name: "upgrade_2.8_index", config: config)
        defer { try? database.close() }
        try database.saveDocument(MutableDocument(id: "added", data: ["firstName": "Zed", "lastName": "Zulu"]))
        #expect(database.count == 3)
        try database.performMaintenance(type: .integrityCheck)
    }

    /// The values `fl_value` hands SQLite, as Couchbase Lite represents them.
    @Test func valuesAreRepresentedAsCouchbaseLiteDoes() throws {
        let reader = DocumentValueReader()
        let keys = SharedKeys()
        reader.attach(keys)
        let body = try JSONConverter.fleece(fromJSON: #"{"s":"text","i":-3,"d":1.5,"b":true,"n":null,"a":[1,2],"o":{"x":1}}"#,
                                            sharedKeys: keys)
        var tree = RevisionTree()
        try tree.insert(RevisionID.next(after: nil, deleted: false, body: body), body: body, deleted: false,
                        hasAttachments: false, parent: nil, allowConflict: false)
        let record = try tree.encoded()
        let value = { (path: String?) in try record.withUnsafeBytes { try reader.value(atPath: path, inRecordBody: $0) } }
        #expect(try value("s") == .text("text"))
        #expect(try value("i") == .int(-3))
        #expect(try value("d") == .double(1.5))
        #expect(try value("b") == .bool(true))
        #expect(try value("n") == .null)
        #expect(try value("missing") == .missing)
        #expect(try value("a[1]") == .int(2))
        guard case .encoded(let array) = try value("a") else { Issue.record("an array is a Fleece blob"); return }
        #expect(try FleeceDocument(bytes: array).root.json() == "[1,2]")
        #expect(try reader.value(atPath: "s", inRecordBody: nil) == .missing)
    }
}
