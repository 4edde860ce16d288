import CouchbaseLiteSwift
import Foundation
import Testing
import TestSupport

/// A grouped query whose columns read nothing but its GROUP BY values keeps those values while
/// reading instead of each row's body. Its rows must equal those of the same query with one
/// more column that reads a property inside an aggregate (which keeps the bodies). Generated
/// documents with missing, null, mixed-type and canonically equivalent values, both engines.
@Suite(.ownThreads) struct GroupByKeyPropertyTests {
    private static func randomValue(_ random: inout SplitMix64) -> Any? {
        switch Int.random(in: 0...8, using: &random) {
        case 0: return nil
        case 1: return NSNull()
        case 2: return Int.random(in: 0...2, using: &random)
        case 3: return Double(Int.random(in: 0...2, using: &random))
        case 4: return Bool.random(using: &random)
        default: return ["a", "B", "\u{e9}", "e\u{301}"][Int.random(in: 0...3, using: &random)]
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func keyedGroupsEqualGroupsOfWholeRows(engine: StorageEngineKind) throws {
        try withDatabase(engine) { database, _ in
            var random = SplitMix64(seed: engine == .sqlite ? 501 : 502)
            try database.inBatch {
                for number in 0..<150 {
                    let document = MutableDocument(id: String(format: "d%03d", number))
                    for key in ["x", "y", "z"] {
                        if let value = Self.randomValue(&random) { document.setValue(value, forKey: key) }
                    }
                    // Nested values, array items and whole objects as GROUP BY keys.
                    if let value = Self.randomValue(&random) { document.setValue(["k": value], forKey: "n") }
                    if let value = Self.randomValue(&random) { document.setValue([value], forKey: "list") }
                    try database.saveDocument(document)
                }
            }
            func rows(_ json: String, columns: Int) throws -> [String] {
                try database.createQuery(json: json).execute().map { row in
                    (0..<columns).map { row.value(at: $0).map { "\($0)|\(type(of: $0))" } ?? "-" }.joined(separator: ",")
                }
            }
            let shapes: [(what: String, columns: Int, groupBy: String, extra: String)] = [
                (#"[".x"],["COUNT()",["."]]"#, 2, #"[[".x"]]"#, ""),
                (#"["UPPER()",[".x"]],["COUNT()",["."]]"#, 2, #"[[".x"]]"#, #","HAVING":["!=",[".x"],"a"]"#),
                (#"[".x"],[".y"],["COUNT()",["."]]"#, 3, #"[[".x"],[".y"]]"#, ""),
                (#"["||",[".x"],"!"],["COUNT()",["."]]"#, 2, #"[[".x"]]"#, #","WHERE":["IS NOT",[".z"],["MISSING"]]"#),
                (#"["TYPE()",[".y"]],["COUNT()",["."]]"#, 2, #"[[".y"]]"#, ""),
                (#"[".n.k"],[".list[0]"],["COUNT()",["."]]"#, 3, #"[[".n.k"],[".list[0]"]]"#, ""),
                (#"[".n"],[".list[-1]"],["COUNT()",["."]]"#, 3, #"[[".n"],[".list[-1]"]]"#, ""),
                (#"[".list"],["COUNT()",["."]]"#, 2, #"[[".list"]]"#, ""),
            ]
            var compared = 0
            for shape in shapes {
                let columns = shape.columns
                let ordered = #","ORDER_BY":\#(shape.groupBy)"#
                let keyed = #"{"WHAT":[\#(shape.what)],"GROUP_BY":\#(shape.groupBy)\#(shape.extra)\#(ordered)}"#
                let whole = #"{"WHAT":[\#(shape.what),["COUNT()",[".z"]]],"GROUP_BY":\#(shape.groupBy)\#(shape.extra)\#(ordered)}"#
                let expected = try rows(whole, columns: columns)
                #expect(try rows(keyed, columns: columns) == expected, "\(keyed)")
                compared += expected.count
            }
            #expect(compared > 20)
        }
    }
}
