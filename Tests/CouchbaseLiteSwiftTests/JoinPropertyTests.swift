import CouchbaseLiteSwift
import Foundation
import Testing
import TestSupport

/// A join reads the same pairs whichever way it finds its candidates: through a value index or
/// against every document, with ON's terms on the joined document alone tested once per document
/// or (disguised so that they also read the other side) per pair. Generated documents with
/// missing, null and mixed-type values, on both engines.
@Suite(.ownThreads) struct JoinPropertyTests {
    private static func randomValue(_ random: inout SplitMix64) -> Any? {
        switch Int.random(in: 0...7, using: &random) {
        case 0: return nil
        case 1: return NSNull()
        case 2: return Int.random(in: 0...2, using: &random)
        default: return ["a", "b", "c", "é", "e\u{301}"][Int.random(in: 0...4, using: &random)]
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func indexedJoinsEqualUnindexedOnes(engine: StorageEngineKind) throws {
        try withDatabase(engine) { database, _ in
            var random = SplitMix64(seed: engine == .sqlite ? 401 : 402)
            try database.inBatch {
                for number in 0..<80 {
                    let document = MutableDocument(id: String(format: "d%02d", number))
                    if let city = Self.randomValue(&random) { document.setValue(city, forKey: "city") }
                    if let type = Self.randomValue(&random) { document.setValue(type, forKey: "type") }
                    try database.saveDocument(document)
                }
            }
            func pairs(_ on: String, _ kind: String) throws -> [String] {
                let json = #"{"WHAT":[[".l._id"],[".r._id"]],"FROM":[{"AS":"l"},{"AS":"r","JOIN":"\#(kind)","ON":\#(on)}],"#
                    + #""ORDER_BY":[[".l._id"],[".r._id"]]}"#
                return try database.createQuery(json: json).execute().map { "\($0.string(at: 0) ?? "-")/\($0.string(at: 1) ?? "-")" }
            }
            var cases: [(on: String, disguised: String, kind: String)] = []
            for _ in 0..<12 {
                let type = [#""a""#, #""b""#, "1", #""\u00e9""#][Int.random(in: 0...3, using: &random)]
                let kind = Bool.random(using: &random) ? "INNER" : "LEFT OUTER"
                cases.append((#"["AND",["=",[".r.city"],[".l.city"]],["=",[".r.type"],\#(type)]]"#,
                              #"["AND",["=",[".r.city"],[".l.city"]],["=",[".r.type"],["IFMISSINGORNULL()",[".l.none"],\#(type)]]]"#,
                              kind))
            }
            let expected = try cases.map { try pairs($0.disguised, $0.kind) }
            let unindexed = try cases.map { try pairs($0.on, $0.kind) }
            try database.createIndex(IndexBuilder.valueIndex(items: ValueIndexItem.property("city")), withName: "byCity")
            #expect(try database.createQuery(json: #"{"WHAT":[[".l._id"]],"FROM":[{"AS":"l"},{"AS":"r","ON":\#(cases[0].on)}]}"#)
                .explain().contains("through index"))
            for (index, item) in cases.enumerated() {
                #expect(unindexed[index] == expected[index], "\(item.on) \(item.kind), no index")
                #expect(try pairs(item.on, item.kind) == expected[index], "\(item.on) \(item.kind), through the index")
            }
            #expect(expected.contains { !$0.isEmpty })
        }
    }

    /// A join by document ID skips re-checking the ON term its lookup used, and the terms on the
    /// joined document alone: the pairs must equal those of the same ON disguised so that no
    /// lookup serves it. References include IDs spelled with canonically equivalent characters,
    /// numbers, null, deleted and missing documents.
    @Test(arguments: StorageEngineKind.allCases)
    func joinsByIDEqualScannedOnes(engine: StorageEngineKind) throws {
        try withDatabase(engine) { database, _ in
            var random = SplitMix64(seed: engine == .sqlite ? 403 : 404)
            let ids = ["a", "b", "\u{e9}", "e\u{301}", "gone", "1"]
            try database.inBatch {
                for id in ids {
                    let document = MutableDocument(id: id)
                    if let type = Self.randomValue(&random) { document.setValue(type, forKey: "type") }
                    try database.saveDocument(document)
                }
                for number in 0..<60 {
                    let document = MutableDocument(id: String(format: "d%02d", number))
                    switch Int.random(in: 0...5, using: &random) {
                    case 0: break
                    case 1: document.setValue(NSNull(), forKey: "ref")
                    case 2: document.setValue(1, forKey: "ref")
                    default: document.setValue((ids + ["none"])[Int.random(in: 0...6, using: &random)], forKey: "ref")
                    }
                    if let type = Self.randomValue(&random) { document.setValue(type, forKey: "type") }
                    try database.saveDocument(document)
                }
            }
            if let gone = database.document(withID: "gone") { try database.deleteDocument(gone) }
            func pairs(_ on: String, _ kind: String) throws -> [String] {
                let json = #"{"WHAT":[[".l._id"],[".r._id"],[".r.type"]],"FROM":[{"AS":"l"},{"AS":"r","JOIN":"\#(kind)","ON":\#(on)}],"#
                    + #""ORDER_BY":[[".l._id"],[".r._id"]]}"#
                return try database.createQuery(json: json).execute().map {
                    "\($0.string(at: 0) ?? "-")/\($0.string(at: 1) ?? "-")/\($0.value(at: 2).map { "\($0)" } ?? "-")"
                }
            }
            var checked = 0
            for _ in 0..<10 {
                let type = [#""a""#, #""b""#, "1", #""\u00e9""#][Int.random(in: 0...3, using: &random)]
                let kind = Bool.random(using: &random) ? "INNER" : "LEFT OUTER"
                let byID = #"["AND",["=",[".r._id"],[".l.ref"]],["=",[".r.type"],\#(type)]]"#
                let disguised = #"["AND",["=",["IFMISSINGORNULL()",[".r._id"],"?"],[".l.ref"]],"#
                    + #"["=",[".r.type"],["IFMISSINGORNULL()",[".l.none"],\#(type)]]]"#
                #expect(try database.createQuery(json: #"{"WHAT":[[".l._id"]],"FROM":[{"AS":"l"},{"AS":"r","ON":\#(byID)}]}"#)
                    .explain().contains("by document ID"))
                let expected = try pairs(disguised, kind)
                let found = try pairs(byID, kind)
                #expect(found == expected, "\(byID) \(kind): \(Set(found).symmetricDifference(expected).sorted())")
                checked += expected.filter { !$0.hasSuffix("/-/-") }.count
            }
            #expect(checked > 0)
        }
    }
}
