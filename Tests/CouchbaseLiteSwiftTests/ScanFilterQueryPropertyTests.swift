import CouchbaseLiteSwift
import Foundation
import Testing
import TestSupport

/// A scan tests `path <op> literal` terms on each record's lent Fleece bytes before the WHERE
/// runs (``ScanFilter``); it may only drop rows the WHERE drops. For random documents and random
/// ANDed comparisons on nested paths, array indexes (also from the end) and keys the shared-key
/// table does not hold, the rows equal those of `NOT NOT p` (same truth value, terms hidden from
/// the filter), on both engines.
@Suite(.ownThreads) struct ScanFilterQueryPropertyTests {
    private static let longKey = "aVeryLongKeyNameOverSixteen"

    private static func randomValue(_ random: inout SplitMix64, depth: Int = 0) -> Any? {
        switch Int.random(in: 0...(depth > 1 ? 7 : 9), using: &random) {
        case 0: return nil
        case 1: return NSNull()
        case 2: return Bool.random(using: &random)
        case 3: return Int.random(in: -3...3, using: &random)
        case 4: return [Double(Int.random(in: -30...30, using: &random)) / 10 as Any, Int.max as Any,
                        Int.min as Any][Int.random(in: 0...2, using: &random)]
        case 5, 6: return ["a", "b", "ab", "", "hotels", "France", "a longer string kept out of line"][Int.random(in: 0...6, using: &random)]
        case 7: return 1e300
        case 8: return (0..<Int.random(in: 0...3, using: &random)).map { _ in randomValue(&random, depth: depth + 1) ?? NSNull() }
        default: return ["p": randomValue(&random, depth: depth + 1) ?? NSNull(), longKey: Int.random(in: 0...2, using: &random)]
        }
    }

    private static func literal(_ random: inout SplitMix64) -> String {
        switch Int.random(in: 0...6, using: &random) {
        case 0: return Bool.random(using: &random) ? "true" : "false"
        case 1: return String(Int.random(in: -3...3, using: &random))
        case 2: return String(Double(Int.random(in: -30...30, using: &random)) / 10)
        case 3: return "9223372036854775807"
        case 4: return "null"
        default: return "\"" + ["a", "b", "ab", "", "hotels", "France"][Int.random(in: 0...5, using: &random)] + "\""
        }
    }

    private static func randomTerm(_ random: inout SplitMix64) -> String {
        let paths = [#"[".v"]"#, #"[".o.p"]"#, #"[".v.p"]"#, #"[".v[0]"]"#, #"[".v[-1]"]"#, #"[".\#(longKey)"]"#,
                     #"[".o.\#(longKey)"]"#, #"[".missing"]"#]
        let path = paths[Int.random(in: 0..<paths.count, using: &random)]
        let op = ["=", "!=", "<", "<=", ">", ">="][Int.random(in: 0...5, using: &random)]
        let value = literal(&random)
        return Bool.random(using: &random) ? #"["\#(op)",\#(path),\#(value)]"# : #"["\#(op)",\#(value),\#(path)]"#
    }

    private func ids(_ database: Database, _ predicate: String) throws -> [String] {
        try database.createQuery(json: #"{"WHAT":[["._id"]],"WHERE":\#(predicate)}"#).execute().map { $0.string(at: 0) ?? "" }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func filteredScanEqualsTheUnfilteredOne(engine: StorageEngineKind) throws {
        try withDatabase(engine) { database, _ in
            var random = SplitMix64(seed: engine == .sqlite ? 811 : 812)
            try database.inBatch {
                for number in 0..<200 {
                    let document = MutableDocument(id: String(format: "d%03d", number))
                    if let value = Self.randomValue(&random) { document.setValue(value, forKey: "v") }
                    if let value = Self.randomValue(&random) { document.setValue(["p": value], forKey: "o") }
                    if let value = Self.randomValue(&random) { document.setValue(value, forKey: Self.longKey) }
                    try database.saveDocument(document)
                }
                for number in stride(from: 0, to: 200, by: 13) {
                    if let document = database.document(withID: String(format: "d%03d", number)) { try database.deleteDocument(document) }
                }
            }
            for _ in 0..<150 {
                let terms = (0..<Int.random(in: 1...3, using: &random)).map { _ in Self.randomTerm(&random) }
                let predicate = terms.count == 1 ? terms[0] : #"["AND",\#(terms.joined(separator: ","))]"#
                let filtered = try ids(database, predicate)
                #expect(filtered == (try ids(database, #"["NOT",["NOT",\#(predicate)]]"#)), "\(predicate)")
            }
        }
    }
}
