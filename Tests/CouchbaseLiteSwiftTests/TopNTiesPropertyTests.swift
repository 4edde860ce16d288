import CouchbaseLiteSwift
import Foundation
import Testing
import TestSupport

/// ORDER BY with a LIMIT keeps only the first OFFSET + LIMIT rows while it reads; rows whose
/// sort keys tie must come in the order the full sort gives them (document-ID order). For
/// random documents with few distinct keys, the limited query's rows equal the first rows of
/// the same query without LIMIT, unindexed and through an index, ascending and descending.
/// Both engines.
@Suite(.ownThreads) struct TopNTiesPropertyTests {
    @Test(arguments: StorageEngineKind.allCases)
    func aLimitKeepsTheFullSortsFirstRows(engine: StorageEngineKind) throws {
        try withDatabase(engine) { database, _ in
            var random = SplitMix64(seed: engine == .sqlite ? 901 : 902)
            try database.inBatch {
                for number in 0..<200 {
                    let document = MutableDocument(id: String(format: "t%03d", (number * 37) % 200))
                    switch Int.random(in: 0...5, using: &random) {
                    case 0: break   // no v: MISSING sorts first
                    case 1: document.setValue(NSNull(), forKey: "v")
                    case 2: document.setDouble(Double(Int.random(in: 0...2, using: &random)), forKey: "v")   // ties an integer
                    default: document.setInt(Int.random(in: 0...3, using: &random), forKey: "v")
                    }
                    document.setString(["a", "b"][Int.random(in: 0...1, using: &random)], forKey: "w")
                    try database.saveDocument(document)
                }
            }
            func ids(_ json: String) throws -> [String] {
                try database.createQuery(json: json).execute().map { $0.string(at: 0) ?? "" }
            }
            for indexed in [false, true] {
                if indexed {
                    try database.createIndex(IndexBuilder.valueIndex(items: ValueIndexItem.property("w"), ValueIndexItem.property("v")),
                                             withName: "byWV")
                }
                for round in 0..<40 {
                    let direction = round % 2 == 0 ? "ASC" : "DESC"
                    let limit = Int.random(in: 1...30, using: &random)
                    let offset = Int.random(in: 0...5, using: &random)
                    let base = #"{"WHAT":[["._id"]],"WHERE":["=",[".w"],"\#(round % 4 < 2 ? "a" : "b")"],"ORDER_BY":[["\#(direction)",[".v"]]]"#
                    let everything = try ids(base + "}")
                    let limited = try ids(base + #","LIMIT":\#(limit),"OFFSET":\#(offset)}"#)
                    #expect(limited == Array(everything.dropFirst(offset).prefix(limit)), "\(base) LIMIT \(limit) OFFSET \(offset), indexed: \(indexed)")
                }
            }
        }
    }
}
