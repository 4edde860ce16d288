import CouchbaseLiteSwift
import Foundation
import Testing
import TestSupport

/// Saving the same JSON texts in the same order gives the revision IDs real Couchbase Lite 2.8
/// gives (measured with its `cblite put` on a new database): the bodies' Fleece bytes, and so
/// their SHA-1 digests, are the same — text key order and shared-key numbering included.
@Suite(.ownThreads) struct RevisionIDCompatibilityTests {
    /// (ID, JSON, the revision ID Couchbase Lite 2.8 gave), saved in this order.
    static let saves: [(String, String, String)] = [
        ("d1", #"{"name":"Zed","type":"hotel","n":3,"f":1.5,"tags":["a","b"],"geo":{"lat":1.25,"lon":-3}}"#,
         "1-1265861c2d5a55685760f0a96f689e036e777672"),
        ("d2", #"{"zeta":"last","alpha":"first","mid":{"y":"2","x":"1"}}"#, "1-834785d93ec5f3ee9dfc0538593b134ac953125c"),
        ("d3", #"{"b":"bbb","a":"aaa"}"#, "1-e231bdadfef666ce4523a85803fe826af0b59040"),
        ("d4", #"{"a":"aaa","b":"bbb"}"#, "1-9dc92cdae92d7263b9808eb6e3622310f507437c"),
        ("d5", #"{"num":[1,-2,300,70000,5000000000,1.5,-0.25,1e300],"s":"x","t":true,"nil":null}"#,
         "1-20b3f111179a5d821519e225a501a0138e217e4d"),
    ]

    @Test(arguments: StorageEngineKind.allCases)
    func jsonDocumentsGetCouchbaseLite28RevisionIDs(engine: StorageEngineKind) throws {
        try withDatabase(engine) { database, _ in
            for (id, json, expected) in Self.saves {
                let document = try MutableDocument(id: id, json: json)
                try database.saveDocument(document)
                #expect(document.revisionID == expected, "\(id)")
            }
        }
    }
}

/// For generated JSON texts (random key orders, every kind of value) saved one after another
/// into a new database, each stored revision ID is the SHA-1 of the independent encoder model's
/// bytes for the same text with the same shared-key state — the rule Couchbase Lite 2.8 uses.
@Suite(.ownThreads) struct RevisionIDModelPropertyTests {
    @Test(arguments: StorageEngineKind.allCases)
    func revisionIDsFollowTheModel(engine: StorageEngineKind) throws {
        try withDatabase(engine) { database, _ in
            var generator = FleeceModelEncoder.Generator(random: SplitMix64(seed: engine == .sqlite ? 77 : 78))
            let model = FleeceModelEncoder(sharedKeys: [])
            for index in 0..<300 {
                let document = generator.document()
                let json = FleeceModelEncoder.text(document)
                let saved = try MutableDocument(id: "doc-\(index)", json: json)
                try database.saveDocument(saved)
                let body = model.encode(document)
                let digest = ReferenceSHA1.digest([0, 0] + body)
                let expected = "1-" + digest.map { String(format: "%02x", $0) }.joined()
                #expect(saved.revisionID == expected, "doc-\(index): \(json.prefix(200))")
                if saved.revisionID != expected { return }
            }
        }
    }
}
