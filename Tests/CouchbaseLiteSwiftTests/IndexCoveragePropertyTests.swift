import CouchbaseLiteSwift
import Foundation
import Testing
import TestSupport

/// A query that reads only `._id` and an index's properties is answered from the index's
/// entries (their keys hold the values); an entry whose key cannot tell a value exactly (null
/// or MISSING, an integral double, an array or object) is answered from its document. For
/// random documents and random queries the rows, their values and their types equal the
/// full scan's, on both engines.
@Suite(.ownThreads) struct IndexCoveragePropertyTests {
    private static func randomValue(_ random: inout SplitMix64) -> Any? {
        switch Int.random(in: 0...11, using: &random) {
        case 0: return nil                       // property missing
        case 1: return NSNull()
        case 2: return Bool.random(using: &random)
        case 3, 4: return Int.random(in: -5...5, using: &random)
        case 5: return Double(Int.random(in: -50...50, using: &random)) / 10   // integral doubles too
        case 6, 7, 8:
            // Strings a LIKE prefix must not take byte by byte: a combining mark right after
            // it, a Kelvin sign (lowercased, "k"), the prefix alone, a NUL inside.
            let texts = ["a", "b", "ab", "B", "é", "", "a\u{0}b", "Abc", "sAn", "San José", "a%b", "San\u{301}ta", "SAN\r\n",
                         "san", "sa", "San\u{0}", "\u{212A}a", "Ka", "a\u{0}"]
            return texts[Int.random(in: 0..<texts.count, using: &random)]
        case 9: return [Int.random(in: 0...3, using: &random)]
        case 10: return ["k": Int.random(in: 0...3, using: &random)]
        default:
            // Beyond a double's integers, and on either side of 2^53.
            return Bool.random(using: &random) ? Int64(1) << 60 + Int64(Int.random(in: 0...3, using: &random))
                : [Int64(9_007_199_254_740_991), 9_007_199_254_740_993, -9_007_199_254_740_993][Int.random(in: 0...2, using: &random)]
        }
    }

    private static func literal(_ random: inout SplitMix64) -> String {
        switch Int.random(in: 0...5, using: &random) {
        case 0: return String(Int.random(in: -5...5, using: &random))
        case 1: return String(Double(Int.random(in: -50...50, using: &random)) / 10)
        case 2: return ["\"a\"", "\"b\"", "\"ab\"", "\"é\"", "\"\"", "\"sAn\"", "\"san\"", "\"a\\u0000\""][Int.random(in: 0...7, using: &random)]
        case 3: return Bool.random(using: &random) ? "true" : "false"
        case 4: return "null"
        default: return ["1152921504606846977", "9007199254740991", "9007199254740992", "-9007199254740993"][Int.random(in: 0...3, using: &random)]
        }
    }

    private static func predicate(_ random: inout SplitMix64) -> String {
        let property = Bool.random(using: &random) ? #"[".v"]"# : #"[".w"]"#
        switch Int.random(in: 0...9, using: &random) {
        case 0: return #"["=",\#(property),\#(literal(&random))]"#
        case 1: return #"["<",\#(property),\#(literal(&random))]"#
        case 2: return #"[">=",\#(literal(&random)),\#(property)]"#
        case 3: return #"["BETWEEN",\#(property),\#(literal(&random)),\#(literal(&random))]"#
        case 4: return #"["AND",["=",[".v"],\#(literal(&random))],[">",[".w"],\#(literal(&random))]]"#
        case 5: return #"["IN",\#(property),["[]",\#(literal(&random)),\#(literal(&random))]]"#
        case 6: return #"["LIKE",[".v"],"\#(["a%", "A%", "san%", "_b", "%", "k%", "SA%"][Int.random(in: 0...6, using: &random)])"]"#
        case 7: return #"["AND",[">",[".v"],\#(literal(&random))],["IS",[".w"],null]]"#
        case 8: return #"["OR",["=",[".v"],\#(literal(&random))],["<",[".w"],\#(literal(&random))]]"#
        default: return #"["AND",["=",[".v"],\#(literal(&random))],["=",[".w"],\#(literal(&random))]]"#
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func entriesAnswerAsTheDocumentsDo(engine: StorageEngineKind) throws {
        try withDatabase(engine) { database, _ in
            var random = SplitMix64(seed: engine == .sqlite ? 611 : 612)
            try database.inBatch {
                for number in 0..<300 {
                    let document = MutableDocument(id: String(format: "d%03d", number))
                    if let value = Self.randomValue(&random) { document.setValue(value, forKey: "v") }
                    if let value = Self.randomValue(&random) { document.setValue(value, forKey: "w") }
                    document.setInt(number % 7, forKey: "other")
                    try database.saveDocument(document)
                }
            }
            try database.createIndex(IndexBuilder.valueIndex(items: ValueIndexItem.property("v"), ValueIndexItem.property("w")),
                                     withName: "byVW")
            func rows(_ json: String) throws -> [String] {
                try database.createQuery(json: json).execute().map { "\($0.toArray())" }
            }
            var answeredByEntries = 0
            for round in 0..<300 {
                let condition = Self.predicate(&random)
                let what = [#"[["._id"]]"#, #"[["._id"],[".v"],[".w"]]"#, #"[[".w"],["._id"]]"#,
                            #"[["._id"],["+",[".v"],1],["LOWER()",[".v"]]]"#][round % 4]
                var tail = ""
                if Bool.random(using: &random) {
                    tail = #","ORDER_BY":[["\#(Bool.random(using: &random) ? "DESC" : "ASC")",[".v"]],[".w"],["._id"]]"#
                    if Bool.random(using: &random) { tail += #","LIMIT":\#(Int.random(in: 0...12, using: &random))"# }
                }
                let indexed = #"{"WHAT":\#(what),"WHERE":\#(condition)\#(tail)}"#
                let scanned = #"{"WHAT":\#(what),"WHERE":["NOT",["NOT",\#(condition)]]\#(tail)}"#
                if try database.createQuery(json: indexed).explain().contains("entries' keys answer") { answeredByEntries += 1 }
                let expected = try rows(scanned)
                let actual = try rows(indexed)
                #expect(actual == expected, "\(indexed)")
                // Without ORDER BY the rows come in ID order either way, so the sets suffice there too.
            }
            #expect(answeredByEntries > 120)
            // A property outside the index, or another metadata, makes the documents be read.
            let outside = try database.createQuery(json: #"{"WHAT":[["._id"],[".other"]],"WHERE":["=",[".v"],"a"]}"#).explain()
            #expect(outside.contains("byVW") && !outside.contains("entries' keys answer"))
            let sequence = try database.createQuery(json: #"{"WHAT":[["._sequence"]],"WHERE":["=",[".v"],"a"]}"#).explain()
            #expect(!sequence.contains("entries' keys answer"))
        }
    }
}
