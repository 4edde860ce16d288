import Foundation
import Testing
import TestSupport
import LiteQuery

/// Fuzzing of the two query front ends through their package entry points: the JSON query
/// compiler (`CompiledQuery(json:databaseName:)`) with structurally mutated real queries, and
/// the SQL++ parser with mutated real statements. Every input compiles or is refused with a
/// `QueryError`; SQL++ the parser accepts becomes valid JSON.
@Suite(.ownThreads) struct QueryParserFuzzTests {
    /// JSON queries in the shapes the platforms' QueryBuilder writes (LiteCore's c4QueryTest
    /// cases and the iOS QueryTest ones, as JSON).
    static let jsonSeeds: [String] = [
        #"{"WHAT":[["._id"]],"WHERE":["=",[".","contact","address","state"],"CA"]}"#,
        #"{"WHAT":[["._id"]],"WHERE":["IS",[".","contact","phone",[0]],["MISSING"]],"OFFSET":0,"LIMIT":4}"#,
        #"{"WHAT":[[".name.first"],["AS",["COUNT()",["."]],"n"]],"GROUP_BY":[[".gender"]],"HAVING":[">",[".n"],2],"ORDER_BY":[["DESC",[".n"]]]}"#,
        #"{"WHAT":[["._id"]],"WHERE":["ANY","like",[".likes"],["=",["?like"],"climbing"]],"DISTINCT":true}"#,
        #"{"WHAT":[[".name.first"]],"WHERE":["AND",["IN",[".name.first"],["[]","Marcy","Maryjo"]],[">",["LENGTH()",[".name.first"]],4]],"ORDER_BY":[[".name.first"]]}"#,
        #"{"WHAT":[["._id"]],"WHERE":["LIKE",[".name.first"],"%Mar%"],"LIMIT":["$limit"]}"#,
        #"{"WHAT":[["."]],"FROM":[{"AS":"a"},{"AS":"b","ON":["=",[".a.x"],[".b.y"]],"JOIN":"LEFT OUTER"}]}"#,
        #"{"WHAT":[["._id"]],"WHERE":["MATCH()","sentence_idx","'Dummie woman'"],"ORDER_BY":[["DESC",["RANK()","sentence_idx"]]]}"#,
        #"{"WHAT":[["._id"]],"WHERE":["BETWEEN",[".contact.address.zip"],"10000","50000"]}"#,
        #"{"WHAT":[["ARRAY_COUNT()",[".likes"]],["LOWER()",[".name.last"]],["+",[".a"],["*",2,[".b"]]]],"WHERE":["NOT",["IS",[".x"],null]]}"#,
        #"{"WHAT":[["._id"]],"WHERE":["COLLATE",{"UNICODE":true,"CASE":false},["=",[".name"],"Ünsal"]]}"#,
        #"{"WHAT":[["._sequence"],["._deleted"]],"WHERE":["EVERY","x",[".tags"],["LIKE",["?x"],"a%"]]}"#,
        #"["=",[".type"],"hotel"]"#,
    ]

    static let operators: [String] = ["=", "!=", "<", ">=", "AND", "OR", "NOT", "IS", "IS NOT", "IN", "LIKE", "MATCH()",
                                      "ANY", "EVERY", "ANY AND EVERY", "BETWEEN", "EXISTS", "[]", ".", "_.", "?", "$",
                                      "COLLATE", "CASE", "+", "-", "*", "/", "%", "||", "MISSING", "LENGTH()", "UPPER()",
                                      "ARRAY_CONTAINS()", "REGEXP_LIKE()", "SUBSTR()", "ROUND()", "COUNT()", "MIN()",
                                      "META()", "RANK()", "TYPE()", "DESC", "ASC", "AS", "BLOB", "UNKNOWN()", ""]

    /// A random leaf or small expression.
    static func randomValue(_ random: inout SplitMix64, depth: Int = 0) -> Any {
        switch Int.random(in: 0..<9, using: &random) {
        case 0: return Int.random(in: -3...3, using: &random)
        case 1: return [Int.max, Int.min, 1e308, -0.0, 0.5][Int.random(in: 0..<5, using: &random)]
        case 2: return ["", ".", "..", "a.b", "$x", "?x", "%", "[0]", "\u{0}", "ü", "'q'"][Int.random(in: 0..<11, using: &random)]
        case 3: return NSNull()
        case 4: return Bool.random(using: &random)
        case 5: return [String: Any]()
        case 6: return ["WHAT": [[".x"]], "LIMIT": Int.random(in: -1...2, using: &random)] as [String: Any]
        default:
            let name = operators[Int.random(in: 0..<operators.count, using: &random)]
            guard depth < 3 else { return [name] }
            return [name] + (0..<Int.random(in: 0...4, using: &random)).map { _ in randomValue(&random, depth: depth + 1) }
        }
    }

    /// Replaces, deletes, duplicates or wraps one node of a parsed JSON query.
    static func mutateTree(_ value: Any, _ random: inout SplitMix64, depth: Int = 0) -> Any {
        let here = Int.random(in: 0..<5, using: &random) == 0 || depth > 6
        if here {
            switch Int.random(in: 0..<4, using: &random) {
            case 0: return randomValue(&random)
            case 1: return [value]
            case 2: return [operators[Int.random(in: 0..<operators.count, using: &random)], value, value]
            default: return value is [Any] ? [] : NSNull()
            }
        }
        if var array = value as? [Any], !array.isEmpty {
            let index = Int.random(in: 0..<array.count, using: &random)
            switch Int.random(in: 0..<6, using: &random) {
            case 0: array.remove(at: index)
            case 1: array.insert(randomValue(&random), at: index)
            default: array[index] = mutateTree(array[index], &random, depth: depth + 1)
            }
            return array
        }
        if var dictionary = value as? [String: Any], !dictionary.isEmpty {
            let keys = dictionary.keys.sorted()
            let key = keys[Int.random(in: 0..<keys.count, using: &random)]
            switch Int.random(in: 0..<5, using: &random) {
            case 0: dictionary[key] = nil
            case 1: dictionary[["WHAT", "WHERE", "FROM", "LIMIT", "OFFSET", "ORDER_BY", "GROUP_BY", "HAVING", "DISTINCT",
                                "WHAT2"][Int.random(in: 0..<10, using: &random)]] = randomValue(&random)
            default: dictionary[key] = mutateTree(dictionary[key] as Any, &random, depth: depth + 1)
            }
            return dictionary
        }
        return randomValue(&random)
    }

    static func compile(_ json: String) -> FuzzCampaign.Outcome {
        do {
            let query = try CompiledQuery(json: json, databaseName: "db")
            _ = query.columnNames
            return .accepted
        } catch is QueryError {
            return .rejected
        } catch {
            Issue.record("CompiledQuery threw \(type(of: error)), not QueryError, for \(json)")
            return .rejected
        }
    }

    @Test func mutatedJSONQueriesCompileOrAreRefused() throws {
        let trees = try Self.jsonSeeds.map { try JSONSerialization.jsonObject(with: Data($0.utf8), options: .fragmentsAllowed) }
        let campaign = try FuzzCampaign.run("JSON query compiler", seed: 0x9E_0001, inputs: 3000) { random in
            let seed = Int.random(in: 0..<trees.count, using: &random)
            let json: String
            if Int.random(in: 0..<50, using: &random) == 0 {
                json = Self.nestedJSON(Int.random(in: 1...3000, using: &random))
            } else if Int.random(in: 0..<5, using: &random) == 0 {
                // Byte-level: the text itself broken (JSON syntax errors, odd escapes).
                json = FuzzMutator.mutate(Self.jsonSeeds[seed], &random, tokens: ["[", "]", "{", "}", "\"", ",", "\\u0000"])
            } else {
                var tree = trees[seed]
                for _ in 0..<Int.random(in: 1...3, using: &random) { tree = Self.mutateTree(tree, &random) }
                json = String(decoding: try JSONSerialization.data(withJSONObject: tree, options: .fragmentsAllowed), as: UTF8.self)
            }
            return Self.compile(json)
        }
        #expect(campaign.accepted > 0 && campaign.rejected > 0)
        #expect(campaign.slowest < FuzzCampaign.perInputLimit)
    }

    static let sqlSeeds: [String] = [
        "SELECT name.first, name.last FROM _ WHERE contact.address.state = 'CA' ORDER BY name.last",
        "SELECT contact.address.state, COUNT(*) AS n FROM _ WHERE gender = 'female' GROUP BY contact.address.state HAVING COUNT(*) > 2 ORDER BY n DESC LIMIT 3",
        "SELECT META().id FROM _ WHERE ANY like IN likes SATISFIES like = 'climbing' END",
        "SELECT DISTINCT gender FROM _ WHERE contact.address.zip BETWEEN '10000' AND '50000' ORDER BY gender",
        "SELECT name.first FROM _ AS p WHERE p.name.first IN ['Marcy', 'Maryjo'] AND LENGTH(p.name.first) > 4 ORDER BY p.name.first",
        "SELECT META().id FROM _ WHERE name.first = $first LIMIT 10 OFFSET 2",
        "SELECT a.x, b.y FROM _ AS a JOIN _ AS b ON a.id = b.ref WHERE a.`odd name` IS NOT MISSING",
        "SELECT * FROM _ WHERE MATCH(sentence_idx, 'Dummie woman') ORDER BY RANK(sentence_idx) DESC",
        "SELECT LOWER(name.last), -3.5e2 + price * 2 FROM _ WHERE NOT (a IS NULL) AND b LIKE \"x%\"",
        "SELECT CASE WHEN a > 1 THEN 'big' ELSE 'small' END FROM _ WHERE EVERY t IN tags SATISFIES t != '' END",
    ]

    /// A generated statement whose WHERE clause is nested `depth` deep.
    static func nestedSQL(_ depth: Int, _ random: inout SplitMix64) -> String {
        let condition = switch Int.random(in: 0..<3, using: &random) {
        case 0: String(repeating: "(", count: depth) + "a" + String(repeating: ")", count: depth)
        case 1: String(repeating: "NOT ", count: depth) + "a"
        default: String(repeating: "-", count: depth) + "1 = a"
        }
        return "SELECT a FROM _ WHERE " + condition
    }

    /// A generated JSON query whose WHERE expression is nested `depth` deep.
    static func nestedJSON(_ depth: Int) -> String {
        #"{"WHAT":[["._id"]],"WHERE":"# + String(repeating: #"["NOT","#, count: depth) + "true"
            + String(repeating: "]", count: depth) + "}"
    }

    /// Found by the fuzzer: unbounded nesting recursed without limit and produced JSON deeper
    /// than the JSON parser accepts; now it is refused with the position.
    @Test func sqlNestingIsBoundedNotACrash() throws {
        let limit = SQLPlusPlusParser.maximumNesting
        #expect(throws: Never.self) { try SQLPlusPlusParser.json(from: "SELECT a FROM _ WHERE " + String(repeating: "NOT ", count: limit - 2) + "a") }
        for depth in [limit + 1, 100_000] {
            for condition in [String(repeating: "(", count: depth) + "a" + String(repeating: ")", count: depth),
                              String(repeating: "NOT ", count: depth) + "a", String(repeating: "-", count: depth) + "1"] {
                let error = #expect(throws: QueryError.self) { try SQLPlusPlusParser.json(from: "SELECT a FROM _ WHERE " + condition) }
                #expect(error?.description.contains("nested") == true)
            }
        }
    }

    /// Found by the fuzzer: `3.e2` reached the JSON as is (not a JSON number).
    @Test(arguments: [("3.e2", "3.0e2"), (".5", "0.5"), ("5.", "5.0"), ("007", "7"), ("0", "0"), ("00.25E-3", "0.25E-3"),
                      ("12", "12"), ("1.5e+10", "1.5e+10")])
    func numberLiteralsBecomeJSONNumbers(sql: String, json: String) throws {
        let query = try SQLPlusPlusParser.json(from: "SELECT \(sql) FROM _")
        #expect(query.contains("[\(json)]"), "\(query)")
        #expect((try? JSONSerialization.jsonObject(with: Data(query.utf8))) != nil)  // allowed: nil is the failure
    }

    /// Found by the long fuzz run: a path of `..` threw FleeceError out of the compiler, and
    /// `1e999` reached the JSON.
    @Test func badPathsAndHugeNumbersAreQueryErrors() throws {
        #expect(throws: QueryError.self) { try CompiledQuery(json: #"["?","..",["DESC",false,-3,{},["META()"]],null]"#, databaseName: "db") }
        #expect(throws: QueryError.self) { try SQLPlusPlusParser.json(from: "SELECT 1e999 FROM _") }
    }

    @Test func mutatedSQLPlusPlusParsesOrIsRefused() throws {
        let tokens = [" SELECT ", " FROM ", " WHERE ", " AND ", " OR ", " NOT ", "(", ")", "[", "]", ",", ".", "'", "\"", "`",
                      "$", " ANY ", " IN ", " SATISFIES ", " END ", " META()", " CASE ", " WHEN ", " JOIN ", " ON ", "*",
                      " IS ", " MISSING ", " ORDER BY ", " LIMIT ", "1e999", "-", "||", " AS "]
        let campaign = FuzzCampaign.run("SQL++ parser", seed: 0x9E_0002, inputs: 4000) { random in
            let text = Int.random(in: 0..<50, using: &random) == 0
                ? Self.nestedSQL(Int.random(in: 1...3000, using: &random), &random)
                : FuzzMutator.mutate(Self.sqlSeeds[Int.random(in: 0..<Self.sqlSeeds.count, using: &random)],
                                     &random, tokens: tokens)
            do {
                let json = try SQLPlusPlusParser.json(from: text)
                guard (try? JSONSerialization.jsonObject(with: Data(json.utf8), options: .fragmentsAllowed)) != nil else {  // allowed: nil is the failure
                    Issue.record("SQL++ \(text.prefix(200)) parsed into invalid JSON \(json.prefix(200))")
                    return .rejected
                }
                _ = Self.compile(json)
                return .accepted
            } catch is QueryError {
                return .rejected
            } catch {
                Issue.record("SQLPlusPlusParser threw \(type(of: error)), not QueryError, for \(text)")
                return .rejected
            }
        }
        #expect(campaign.accepted > 0 && campaign.rejected > 0)
        #expect(campaign.slowest < FuzzCampaign.perInputLimit)
    }
}
