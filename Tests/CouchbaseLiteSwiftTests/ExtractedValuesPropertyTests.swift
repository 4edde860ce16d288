import CouchbaseLiteSwift
import Foundation
import Testing
import TestSupport

/// A passing row, and a document a join finds, keeps the values of the few property paths read
/// after WHERE instead of a copy of its body (a row whose value there is an array, an object or
/// data keeps its body). Its answers must equal those of the same query with columns reading
/// the whole documents, which keep every body: columns, ORDER BY, joins by ID and through an index, UNNEST and WHERE
/// terms after a join, over generated documents, on both engines.
@Suite(.ownThreads) struct ExtractedValuesPropertyTests {
    private static func randomValue(_ random: inout SplitMix64) -> Any? {
        switch Int.random(in: 0...9, using: &random) {
        case 0: return nil
        case 1: return NSNull()
        case 2: return Int.random(in: 0...2, using: &random)
        case 3: return 1.5
        case 4: return Bool.random(using: &random)
        case 5: return ["a", 1]
        case 6: return ["k": "a"]
        default: return ["a", "b", "\u{e9}", "e\u{301}", "d01", "d02"][Int.random(in: 0...5, using: &random)]
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func keptValuesAnswerAsBodiesDo(engine: StorageEngineKind) throws {
        try withDatabase(engine) { database, _ in
            var random = SplitMix64(seed: engine == .sqlite ? 701 : 702)
            try database.inBatch {
                for number in 0..<120 {
                    let document = MutableDocument(id: String(format: "d%02d", number))
                    for key in ["x", "y", "ref"] {
                        if let value = Self.randomValue(&random) { document.setValue(value, forKey: key) }
                    }
                    if let value = Self.randomValue(&random) { document.setValue(["k": value], forKey: "n") }
                    if Bool.random(using: &random) { document.setValue([Self.randomValue(&random) ?? 0, 2], forKey: "list") }
                    try database.saveDocument(document)
                }
            }
            try database.createIndex(IndexBuilder.valueIndex(items: ValueIndexItem.property("y")), withName: "byY")
            func rows(_ json: String, columns: Int) throws -> [String] {
                try database.createQuery(json: json).execute().map { row in
                    (0..<columns).map { row.value(at: $0).map { "\($0)|\(type(of: $0))" } ?? "-" }.joined(separator: ",")
                }
            }
            let queries: [(what: String, columns: Int, rest: String)] = [
                (#"[".x"],[".n.k"],[".list[0]"]"#, 3, #","WHERE":["IS NOT",[".y"],["MISSING"]],"ORDER_BY":[["._id"]]"#),
                (#"["._id"],[".x"]"#, 2, #","ORDER_BY":[[".n.k"],["._id"]],"LIMIT":30"#),
                (#"[".l.x"],[".r._id"],[".r.y"]"#, 3,
                 #","FROM":[{"AS":"l"},{"AS":"r","ON":["=",[".r._id"],[".l.ref"]]}],"ORDER_BY":[[".l._id"]]"#),
                (#"[".l.x"],[".r.n.k"],[".r.list[0]"],[".r.ref"]"#, 4,
                 #","FROM":[{"AS":"l"},{"AS":"r","ON":["AND",["=",[".r._id"],[".l.ref"]],["!=",[".r.x"],"b"]]}],"#
                    + #""ORDER_BY":[[".l._id"]]"#),
                (#"[".l.x"],[".r._id"]"#, 2,
                 #","FROM":[{"AS":"l"},{"AS":"r","JOIN":"LEFT OUTER","ON":["=",[".r.y"],[".l.x"]]}],"#
                    + #""WHERE":["OR",["IS",[".r.x"],["MISSING"]],["!=",[".l.n.k"],[".r.x"]]],"ORDER_BY":[[".l._id"],[".r._id"]]"#),
                (#"[".l.x"],[".item"]"#, 2,
                 #","FROM":[{"AS":"l"},{"AS":"item","UNNEST":[".l.list"]}],"ORDER_BY":[[".l._id"]]"#),
            ]
            var compared = 0
            for query in queries {
                // The whole documents of the first source and of a joined one keep every body.
                let whole = query.rest.contains(#""AS":"r""#) ? #"[".l"],[".r"]"# : query.rest.contains("\"FROM\"") ? #"[".l"]"# : #"["."]"#
                let kept = #"{"WHAT":[\#(query.what)]\#(query.rest)}"#
                let bodies = #"{"WHAT":[\#(query.what),\#(whole)]\#(query.rest)}"#
                let expected = try rows(bodies, columns: query.columns)
                #expect(try rows(kept, columns: query.columns) == expected, "\(kept)")
                compared += expected.count
            }
            #expect(compared > 100)
        }
    }
}
