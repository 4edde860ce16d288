import CouchbaseLiteSwift
import Foundation
import Testing
import TestSupport

/// Forms of the JSON query schema that Couchbase Lite 2.8 accepts (formats.md §3.2–3.3) and
/// this engine refused as "invalid query": arithmetic over more than two operands, array and
/// dictionary literals, `ARRAY_OF()`, the object property accessor `_.`, and CASE — through the
/// JSON syntax, SQL++ and (where the 2.x builder has a form) the builder, on both engines.
@Suite(.ownThreads) struct QuerySchemaFormsTests {
    private func withPeople<T>(_ engine: StorageEngineKind, _ body: (Database) throws -> T) throws -> T {
        try withDatabase(engine) { database, _ throws in
            try database.saveDocument(MutableDocument(id: "ann", data: ["name": "Ann", "age": 31, "address": ["city": "Oslo"]]))
            try database.saveDocument(MutableDocument(id: "bob", data: ["name": "Bob", "age": 17, "address": ["city": "Rome"]]))
            try database.saveDocument(MutableDocument(id: "cat", data: ["name": "Cat", "age": 64]))
            return try body(database)
        }
    }

    /// The rows of a JSON query, each as an array of its columns (JSON-ish Swift values).
    private func rows(_ database: Database, _ json: String) throws -> [[Any?]] {
        try database.createQuery(json: json).execute().map { $0.toArray() }
    }

    /// A result number as an Int (results hold Int64s).
    private func int(_ value: Any?) -> Int? { (value as? NSNumber)?.intValue ?? (value as? Int64).map(Int.init) ?? value as? Int }

    private func strings(_ database: Database, _ json: String) throws -> [String] {
        try database.createQuery(json: json).execute().map { $0.string(at: 0) ?? "?" }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func arithmeticTakesMoreThanTwoOperands(engine: StorageEngineKind) throws {
        try withPeople(engine) { database throws in
            let values = try rows(database, #"{"WHAT": [["*", 3, 4, 5], ["+", 1, 2, 3, 4], ["||", "a", "b", "c"]], "LIMIT": 1}"#)
            #expect(int(values.first?[0]) == 60)
            #expect(int(values.first?[1]) == 10)
            #expect(values.first?[2] as? String == "abc")
            #expect(try strings(database, #"{"WHAT": [["._id"]], "WHERE": [">", ["+", [".age"], 1, 2], 60]}"#) == ["cat"])
            #expect(try strings(database, #"{"WHAT": [["._id"]], "WHERE": ["=", ["*", [".age"], 1, 2, 0.5], 17]}"#) == ["bob"])
            // 2.8 takes up to nine operands.
            #expect(errorCode {
                _ = try database.createQuery(json: #"{"WHAT": [["+", 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]]}"#).execute()
            } == .invalidQuery)
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func arrayAndDictionaryLiteralsAreExpressions(engine: StorageEngineKind) throws {
        try withPeople(engine) { database throws in
            let json = #"{"WHAT": [["[]", 1, [".name"]], ["ARRAY_OF()", [".age"], "x"], {"n": [".name"], "b": ["[]", 2, 3]}],"#
                + #" "WHERE": ["=", ["._id"], "ann"]}"#
            let row = try #require(try rows(database, json).first)
            #expect((row[0] as? [Any])?.count == 2)
            #expect((row[0] as? [Any])?[1] as? String == "Ann")
            #expect(int((row[1] as? [Any])?[0]) == 31)
            let object = try #require(row[2] as? [String: Any])
            #expect(object["n"] as? String == "Ann")
            #expect((object["b"] as? [Any])?.compactMap { int($0) } == [2, 3])
            // Anywhere an expression stands: IN a literal array built from properties.
            #expect(try strings(database, #"{"WHAT": [["._id"]], "WHERE": ["IN", "Rome", ["[]", [".address.city"], "x"]]}"#)
                    == ["bob"])
            #expect(try strings(database, #"{"WHAT": [["._id"]], "WHERE": ["=", ["ARRAY_LENGTH()", ["ARRAY_OF()", 1, 2, 3]], 3], "ORDER_BY": [["._id"]]}"#)
                    == ["ann", "bob", "cat"])
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func theObjectPropertyAccessorReadsIntoAnyExpression(engine: StorageEngineKind) throws {
        try withPeople(engine) { database throws in
            let json = #"{"WHAT": [["_.", {"a": {"b": ["[]", 10, 20]}}, "a.b[1]"], ["_.a", {"a": 5}], ["_.city", [".address"]],"#
                + #" ["_.", [".address"], "nothing"]], "WHERE": ["=", ["._id"], "ann"]}"#
            let row = try #require(try rows(database, json).first)
            #expect(int(row[0]) == 20)
            #expect(int(row[1]) == 5)
            #expect(row[2] as? String == "Oslo")
            #expect(row.count < 4 || row[3] == nil || row[3] is NSNull)
            #expect(try strings(database, #"{"WHAT": [["._id"]], "WHERE": ["=", ["_.", [".address"], "city"], "Rome"]}"#) == ["bob"])
            #expect(errorCode { _ = try database.createQuery(json: #"{"WHAT": [["_.", 1]]}"#).execute() } == .invalidQuery)
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func caseIsAnExpressionAnywhere(engine: StorageEngineKind) throws {
        try withPeople(engine) { database throws in
            // Searched CASE in WHAT and in WHERE; simple CASE; no ELSE is NULL.
            let searched = #"["CASE", null, ["<", [".age"], 18], "minor", [">=", [".age"], 60], "senior", "adult"]"#
            let json = #"{"WHAT": [["._id"], "# + searched + #", ["CASE", [".name"], "Ann", 1, "Bob", 2],"#
                + #" ["CASE", null, ["=", [".name"], "Ann"], "A"]], "ORDER_BY": [["._id"]]}"#
            let values = try rows(database, json)
            #expect(values.map { $0[1] as? String } == ["adult", "minor", "senior"])
            #expect(values.map { int($0[2]) } == [1, 2, nil])
            #expect(values.map { $0[3] as? String } == ["A", nil, nil])
            #expect(try strings(database, #"{"WHAT": [["._id"]], "WHERE": ["=", "# + searched + #", "senior"]}"#) == ["cat"])
            #expect(try strings(database, #"{"WHAT": [["._id"]], "WHERE": ["CASE", null, [">", [".age"], 30], true, false], "ORDER_BY": [["._id"]]}"#)
                    == ["ann", "cat"])
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func sqlPlusPlusSpellsTheSameForms(engine: StorageEngineKind) throws {
        try withPeople(engine) { database throws in
            func values(_ sql: String) throws -> [[Any?]] { try database.createQuery(sql).execute().map { $0.toArray() } }
            let row = try #require(try values(
                "SELECT 3 * 4 * 5, CASE WHEN age < 18 THEN 'minor' ELSE 'adult' END, CASE name WHEN 'Ann' THEN 1 END, "
                    + "{'n': name, 'b': [1, 2]}, {'a': {'b': 7}}.a.b, [10, 20, 30][2], ARRAY_OF(1, 2) FROM _ WHERE META().id = 'ann'").first)
            #expect(int(row[0]) == 60)
            #expect(row[1] as? String == "adult")
            #expect(int(row[2]) == 1)
            #expect((row[3] as? [String: Any])?["n"] as? String == "Ann")
            #expect(int(row[4]) == 7)
            #expect(int(row[5]) == 30)
            #expect((row[6] as? [Any])?.count == 2)
            let minors = try database.createQuery(
                "SELECT META().id FROM _ WHERE CASE WHEN age < 18 THEN TRUE ELSE FALSE END").execute().map { $0.string(at: 0) }
            #expect(minors == ["bob"])
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func theBuildersArrayAndDictionaryLiteralsHoldExpressions(engine: StorageEngineKind) throws {
        try withPeople(engine) { database throws in
            let rows = try QueryBuilder
                .select(SelectResult.expression(Expression.array([Expression.property("name"), 1])).as("list"),
                        SelectResult.expression(Expression.dictionary(["age": Expression.property("age")])).as("object"))
                .from(DataSource.database(database)).where(Meta.id.equalTo(Expression.string("bob")))
                .execute().allResults()
            #expect(rows.first?.array(forKey: "list")?.toArray().first as? String == "Bob")
            #expect(rows.first?.dictionary(forKey: "object")?.int(forKey: "age") == 17)
        }
    }

    /// Functions of 2.8's list (formats.md §3.3) that were refused as unknown here.
    @Test(arguments: StorageEngineKind.allCases)
    func functionsOf28ThatWereUnknown(engine: StorageEngineKind) throws {
        try withPeople(engine) { database throws in
            let json = #"{"WHAT": [["ARRAY_AVG()", ["[]", 1, 2, "x", 6]], ["ARRAY_MAX()", ["[]", 3, null, 9]], ["ARRAY_MIN()", ["[]", "b", "a"]],"#
                + #" ["ARRAY_IFNULL()", ["[]", null, 4]], ["GREATEST()", 3, [".age"], null], ["LEAST()", 3, [".age"]],"#
                + #" ["NULLIF()", [".age"], 31], ["MISSINGIF()", [".age"], 30], ["ISATOM()", [".name"]], ["IS_VALUED()", [".nothing"]],"#
                + #" ["TOARRAY()", 5], ["TOATOM()", ["[]", 7]], ["TOBOOLEAN()", ""], ["TOOBJECT()", 1], ["TRIM()", "xxhixx", "x"],"#
                + #" ["LTRIM()", "xxhixx", "x"], ["RTRIM()", "xxhixx", "x"]], "WHERE": ["=", ["._id"], "ann"]}"#
            let row = try #require(try database.createQuery(json: json).execute().allResults().first)
            #expect(row.double(at: 0) == 3)
            #expect(row.int(at: 1) == 9)
            #expect(row.string(at: 2) == "a")
            #expect(row.int(at: 3) == 4)
            #expect(row.int(at: 4) == 31)
            #expect(row.int(at: 5) == 3)
            #expect(row.value(at: 6) is NSNull)
            #expect(row.int(at: 7) == 31)
            #expect(row.boolean(at: 8))
            #expect(!row.boolean(at: 9))
            #expect(row.array(at: 10)?.count == 1)
            #expect(row.int(at: 11) == 7)
            #expect(!row.boolean(at: 12))
            #expect(row.dictionary(at: 13)?.count == 0)
            #expect(row.string(at: 14) == "hi")
            #expect(row.string(at: 15) == "hixx")
            #expect(row.string(at: 16) == "xxhi")
        }
    }
}
