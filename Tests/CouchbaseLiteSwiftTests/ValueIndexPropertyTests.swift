import CouchbaseLiteSwift
import Foundation
import Testing
import TestSupport

/// For random documents and random predicates, a query planned on a value index returns exactly
/// the rows of the full scan, before and after the documents change (the index follows saves,
/// deletions and purges), on both engines.
@Suite(.ownThreads) struct ValueIndexPropertyTests {
    private static func randomValue(_ random: inout SplitMix64) -> Any? {
        switch Int.random(in: 0...9, using: &random) {
        case 0: return nil                       // property missing
        case 1: return NSNull()
        case 2: return Bool.random(using: &random)
        case 3, 4: return Int.random(in: -50...50, using: &random)
        case 5: return Double(Int.random(in: -500...500, using: &random)) / 10
        case 6, 7: return ["a", "b", "ab", "B", "é", "", "zz", "Abc", "aBd", "\u{212A}a", "ka", "a%b"][Int.random(in: 0...11, using: &random)]
        case 8: return [Int.random(in: 0...3, using: &random)]
        default: return ["k": Int.random(in: 0...3, using: &random)]
        }
    }

    private static func literal(_ value: Any?) -> String {
        switch value {
        case nil, is NSNull: return "null"
        case let flag as Bool: return flag ? "true" : "false"
        case let number as Int: return String(number)
        case let number as Double: return String(number)
        case let text as String: return "\"\(text)\""
        default: return "1"
        }
    }

    private static func randomPredicate(_ random: inout SplitMix64) -> String {
        let constant = { (random: inout SplitMix64) -> String in
            var value = randomValue(&random)
            while value is [Any] || value is [String: Any] || value == nil { value = randomValue(&random) }
            return literal(value)
        }
        let v = #"[".v"]"#
        switch Int.random(in: 0...8, using: &random) {
        case 0: return #"["=",\#(v),\#(constant(&random))]"#
        case 1: return #"["<",\#(v),\#(constant(&random))]"#
        case 2: return #"[">=",\#(v),\#(constant(&random))]"#
        case 3: return #"["<=",\#(constant(&random)),\#(v)]"#
        case 4: return #"["BETWEEN",\#(v),\#(constant(&random)),\#(constant(&random))]"#
        case 5: return #"["AND",[">",\#(v),\#(constant(&random))],["=",[".w"],\#(Int.random(in: 0...2, using: &random))]]"#
        case 6: return #"["IN",\#(v),["[]",\#(constant(&random)),\#(constant(&random)),\#(constant(&random))]]"#
        case 7:
            let patterns = ["a%", "A%", "ab%", "AB_", "b_", "%b", "é%", "K%", "ka%", "a\\\\%%", "", "%"]
            return #"["LIKE",\#(v),"\#(patterns[Int.random(in: 0..<patterns.count, using: &random)])"]"#
        default: return #"["OR",["=",\#(v),\#(constant(&random))],["<",[".w"],1]]"#
        }
    }

    private func ids(_ database: Database, _ predicate: String) throws -> [String] {
        try database.createQuery(json: #"{"WHAT":[["._id"]],"WHERE":\#(predicate)}"#).execute().map { $0.string(at: 0) ?? "" }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func indexedAndScannedPlansReturnTheSameRows(engine: StorageEngineKind) throws {
        try withDatabase(engine) { database, _ in
            var random = SplitMix64(seed: engine == .sqlite ? 501 : 502)
            try database.inBatch {
                for number in 0..<300 {
                    let document = MutableDocument(id: String(format: "d%03d", number))
                    if let value = Self.randomValue(&random) { document.setValue(value, forKey: "v") }
                    document.setInt(Int.random(in: 0...2, using: &random), forKey: "w")
                    try database.saveDocument(document)
                }
            }
            let predicates = (0..<120).map { _ in Self.randomPredicate(&random) }
            let scanned = try predicates.map { try ids(database, $0) }
            // NOT NOT p has p's truth value but hides p's terms from the scan's quick filter: the
            // filter must never drop a row the WHERE keeps.
            for (predicate, expected) in zip(predicates, scanned) {
                #expect(try ids(database, #"["NOT",["NOT",\#(predicate)]]"#) == expected, "\(predicate)")
            }

            try database.createIndex(Index.valueIndex(withItems: [ValueIndexItem.property("v")]), withName: "byV")
            let explained = try database.createQuery(json: #"{"WHAT":[["._id"]],"WHERE":["=",[".v"],1]}"#).explain()
            #expect(explained.contains("index \"byV\""))
            let prefix = try database.createQuery(json: #"{"WHAT":[["._id"]],"WHERE":["LIKE",[".v"],"ab%"]}"#).explain()
            #expect(prefix.contains(#"strings starting with "AB""#))
            let list = try database.createQuery(json: #"{"WHAT":[["._id"]],"WHERE":["IN",[".v"],["[]",1,"b"]]}"#).explain()
            #expect(list.contains("index \"byV\"") && list.contains(" or "))
            for (predicate, expected) in zip(predicates, scanned) {
                #expect(try ids(database, predicate) == expected, "\(predicate)")
            }

            // Change a third of the documents, delete some, purge some: the index follows.
            try database.inBatch {
                for number in stride(from: 0, to: 300, by: 3) {
                    let id = String(format: "d%03d", number)
                    guard let document = database.document(withID: id)?.toMutable() else { continue }
                    if let value = Self.randomValue(&random) { document.setValue(value, forKey: "v") } else { document.removeValue(forKey: "v") }
                    try database.saveDocument(document)
                }
                for number in stride(from: 1, to: 300, by: 7) {
                    if let document = database.document(withID: String(format: "d%03d", number)) { try database.deleteDocument(document) }
                }
            }
            for number in stride(from: 2, to: 300, by: 11) { try? database.purgeDocument(withID: String(format: "d%03d", number)) }
            try database.saveDocument(MutableDocument(id: "late", data: ["v": 1, "w": 0]))
            // Answers from the incrementally maintained index…
            let indexed = try predicates.map { try ids(database, $0) }
            // …equal the full scan's once the index is gone.
            try database.deleteIndex(forName: "byV")
            #expect(!(try database.createQuery(json: #"{"WHAT":[["._id"]],"WHERE":["=",[".v"],1]}"#).explain())
                .contains("index \"byV\""))
            for (predicate, (withIndex, rescanned)) in zip(predicates, zip(indexed, try predicates.map { try ids(database, $0) })) {
                #expect(withIndex == rescanned, "\(predicate)")
            }
        }
    }
}

/// ORDER BY with LIMIT keeps only the first rows while reading (a top-N): the rows are exactly
/// the full sort's slice, ties in the same order, for random documents, keys and limits.
@Suite(.ownThreads) struct TopNPropertyTests {
    @Test(arguments: StorageEngineKind.allCases)
    func orderByWithLimitEqualsTheSortedSlice(engine: StorageEngineKind) throws {
        try withDatabase(engine) { database, _ in
            var random = SplitMix64(seed: engine == .sqlite ? 77 : 78)
            try database.inBatch {
                for number in 0..<200 {
                    let document = MutableDocument(id: String(format: "d%03d", number))
                    switch Int.random(in: 0...3, using: &random) {
                    case 0: break
                    case 1: document.setInt(Int.random(in: 0...9, using: &random), forKey: "v")
                    case 2: document.setString(["a", "b", "c"][Int.random(in: 0...2, using: &random)], forKey: "v")
                    default: document.setValue(NSNull(), forKey: "v")
                    }
                    document.setInt(Int.random(in: 0...3, using: &random), forKey: "w")
                    try database.saveDocument(document)
                }
            }
            for _ in 0..<40 {
                let descending = Bool.random(using: &random)
                let order = descending ? #"[["DESC",[".v"]],[".w"]]"# : #"[[".v"],["DESC",[".w"]]]"#
                let limit = Int.random(in: 0...30, using: &random), offset = Int.random(in: 0...20, using: &random)
                let full = try database.createQuery(json: #"{"WHAT":[["._id"]],"ORDER_BY":\#(order)}"#).execute()
                    .map { $0.string(at: 0) ?? "" }
                let slice = try database.createQuery(json: #"{"WHAT":[["._id"]],"ORDER_BY":\#(order),"LIMIT":\#(limit),"OFFSET":\#(offset)}"#)
                    .execute().map { $0.string(at: 0) ?? "" }
                #expect(slice == Array(full.dropFirst(offset).prefix(limit)), "\(order) LIMIT \(limit) OFFSET \(offset)")
            }
        }
    }
}

/// ORDER BY … LIMIT served by reading an index in order (and stopping early) returns exactly the
/// rows of the unindexed plan, ties included, forwards and backwards, on one and two-expression
/// indexes.
@Suite(.ownThreads) struct IndexOrderPropertyTests {
    @Test(arguments: StorageEngineKind.allCases)
    func orderedIndexReadsEqualTheScan(engine: StorageEngineKind) throws {
        try withDatabase(engine) { database, _ in
            var random = SplitMix64(seed: engine == .sqlite ? 91 : 92)
            try database.inBatch {
                for number in 0..<250 {
                    let document = MutableDocument(id: String(format: "d%03d", number))
                    switch Int.random(in: 0...6, using: &random) {
                    case 0: break
                    case 1: document.setValue(NSNull(), forKey: "v")
                    case 2: document.setString(["a", "b", "c"][Int.random(in: 0...2, using: &random)], forKey: "v")
                    // Values whose keys encode alike but that differ (integers past 2^53 share a
                    // double) or tie (an integer and the same double).
                    case 3: document.setInt64([9_007_199_254_740_992, 9_007_199_254_740_993][Int.random(in: 0...1, using: &random)],
                                              forKey: "v")
                    case 4: document.setDouble(Double(Int.random(in: 0...12, using: &random)) + [0, 0.5][Int.random(in: 0...1, using: &random)],
                                               forKey: "v")
                    default: document.setInt(Int.random(in: 0...12, using: &random), forKey: "v")
                    }
                    document.setInt(Int.random(in: 0...3, using: &random), forKey: "w")
                    try database.saveDocument(document)
                }
            }
            try database.createIndex(IndexBuilder.valueIndex(items: ValueIndexItem.property("v")), withName: "byV")
            try database.createIndex(IndexBuilder.valueIndex(items: ValueIndexItem.property("w"), ValueIndexItem.property("v")),
                                     withName: "byWV")
            func ids(_ json: String) throws -> [String] {
                try database.createQuery(json: json).execute().map { $0.string(at: 0) ?? "" }
            }
            var servedByIndex = 0
            for _ in 0..<60 {
                let limit = Int.random(in: 0...25, using: &random), offset = Int.random(in: 0...10, using: &random)
                let direction = Bool.random(using: &random) ? "DESC" : "ASC"
                let condition: String, order: String
                switch Int.random(in: 0...2, using: &random) {
                case 0:
                    condition = #"[">",[".v"],\#(Int.random(in: -1...10, using: &random))]"#
                    order = #"[["\#(direction)",[".v"]]]"#
                case 1:
                    condition = #"["=",[".w"],\#(Int.random(in: 0...3, using: &random))]"#
                    order = #"[["\#(direction)",[".v"]]]"#
                default:
                    condition = #"["=",[".w"],\#(Int.random(in: 0...3, using: &random))]"#
                    order = #"[["\#(direction)",[".w"]],["\#(direction)",[".v"]]]"#
                }
                let tail = #","ORDER_BY":\#(order),"LIMIT":\#(limit),"OFFSET":\#(offset)}"#
                let indexed = #"{"WHAT":[["._id"]],"WHERE":\#(condition)\#(tail)"#
                let scanned = #"{"WHAT":[["._id"]],"WHERE":["NOT",["NOT",\#(condition)]]\#(tail)"#
                if try database.createQuery(json: indexed).explain().contains("index order for ORDER BY") { servedByIndex += 1 }
                #expect(try ids(indexed) == ids(scanned), "\(indexed)")
            }
            #expect(servedByIndex > 30)
            // Equalities on both expressions read their common key prefix of byWV.
            for _ in 0..<30 {
                let value = [#""a""#, #""c""#, "3", "7", "null"][Int.random(in: 0...4, using: &random)]
                let condition = #"["AND",["=",[".v"],\#(value)],["=",[".w"],\#(Int.random(in: 0...3, using: &random))]]"#
                let plain = #"{"WHAT":[["._id"]],"WHERE":\#(condition)}"#
                if value != "null" { #expect(try database.createQuery(json: plain).explain().contains("byWV")) }
                #expect(try ids(plain) == ids(#"{"WHAT":[["._id"]],"WHERE":["NOT",["NOT",\#(condition)]]}"#), "\(plain)")
                let limited = #"{"WHAT":[["._id"]],"WHERE":\#(condition),"ORDER_BY":[["DESC",[".v"]]],"LIMIT":3}"#
                #expect(try ids(limited)
                        == ids(#"{"WHAT":[["._id"]],"WHERE":["NOT",["NOT",\#(condition)]],"ORDER_BY":[["DESC",[".v"]]],"LIMIT":3}"#))
            }
            // Without ORDER BY, rows come in document-ID order whichever index is read.
            for w in 0...3 {
                let condition = #"["=",[".w"],\#(w)]"#
                #expect(try database.createQuery(json: #"{"WHAT":[["._id"]],"WHERE":\#(condition)}"#).explain().contains("byWV"))
                #expect(try ids(#"{"WHAT":[["._id"]],"WHERE":\#(condition)}"#)
                        == ids(#"{"WHAT":[["._id"]],"WHERE":["NOT",["NOT",\#(condition)]]}"#))
            }
        }
    }
}
