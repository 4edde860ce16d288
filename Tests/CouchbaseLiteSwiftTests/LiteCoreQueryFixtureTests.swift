import CouchbaseLiteSwift
import Foundation
import Testing
import TestSupport

/// LiteCore's own query tests (`../shared/fixtures/query/expectations.json`, from
/// couchbase-lite-core 2.8.9 `c4QueryTest.cc` and couchbase-lite-ios 2.8.4 `QueryTest.swift`) on
/// their data sets, as JSON queries, once per engine. Expected rows are read from the fixture;
/// the queries are its WHERE/WHAT/FROM texts written as JSON.
@Suite(.ownThreads) struct LiteCoreQueryFixtureTests {
    /// The expected values of a case of `expectations.json`.
    private static var cases: [String: [[String: Any]]] {
        guard let data = try? Fixtures.data("query/expectations.json"),   // allowed: a missing fixture fails every lookup below
              let root = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return [:] }
        return root.compactMapValues { ($0 as? [String: Any])?["cases"] as? [[String: Any]] }
    }

    /// The expected values of a case (empty, with a recorded issue, when the fixture lacks it).
    private static func expected(_ group: String, _ name: String) -> [String: Any] {
        guard let found = cases[group]?.first(where: { $0["name"] as? String == name }) else {
            Issue.record("expectations.json has no case \(group)/\(name)")
            return [:]
        }
        return found
    }

    private static func expectedIDs(_ name: String, group: String = "litecore_c4QueryTest") -> [String]? {
        expected(group, name)["expect"] as? [String]
    }

    /// names_100.json imported with LiteCore's IDs (`0000001`… by line), or the iOS tests' (`doc-001`…).
    private static func loadNames(_ database: Database, iOSIDs: Bool = false) throws {
        let text = String(decoding: try Fixtures.data("query/names_100.json"), as: UTF8.self)
        try database.inBatch {
            for (number, line) in text.split(separator: "\n").enumerated() {
                let id = iOSIDs ? String(format: "doc-%03d", number + 1) : String(format: "%07d", number + 1)
                try database.saveDocument(try MutableDocument(id: id, json: String(line)))
            }
        }
    }

    private static func loadLines(_ database: Database, _ file: String) throws {
        let text = String(decoding: try Fixtures.data("query/\(file)"), as: UTF8.self)
        try database.inBatch {
            for (number, line) in text.split(separator: "\n").enumerated() {
                try database.saveDocument(try MutableDocument(id: String(format: "%07d", number + 1), json: String(line)))
            }
        }
    }

    private static func ids(_ database: Database, where condition: String, orderBy: String? = nil,
                            offset: Int? = nil, limit: Int? = nil) throws -> [String] {
        var json = #"{"WHAT":[["._id"]],"WHERE":"# + condition
        if let orderBy { json += #","ORDER_BY":"# + orderBy }
        if let offset { json += #","OFFSET":\#(offset)"# }
        if let limit { json += #","LIMIT":\#(limit)"# }
        return try database.createQuery(json: json + "}").execute().map { $0.string(at: 0) ?? "" }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func whereClauses(engine: StorageEngineKind) throws {
        try withDatabase(engine) { database, _ in
            try Self.loadNames(database)
            let state = #"["=",[".","contact","address","state"],"CA"]"#
            #expect(try Self.ids(database, where: state) == Self.expectedIDs("Basic ="))
            #expect(try Self.ids(database, where: state, offset: 1, limit: 4) == Self.expectedIDs("Basic = with offset 1 limit 4"))
            #expect(try Self.ids(database, where: #"["IS",[".","contact","phone",[0]],["MISSING"]]"#, offset: 0, limit: 4)
                    == Self.expectedIDs("IS MISSING"))
            #expect(try database.createQuery(json: #"{"WHAT":[["._id"]],"LIMIT":10,"OFFSET":90}"#).execute().allResults().count
                    == Self.expected("litecore_c4QueryTest", "LIMIT 10 / OFFSET 90")["expect_count"] as? Int)
            #expect(try Self.ids(database, where: #"["LIKE",[".name.first"],"Jen%"]"#) == Self.expectedIDs("LIKE Jen%"))
            #expect(try Self.ids(database, where: #"["LIKE",[".name.first"],"_ene"]"#) == Self.expectedIDs("LIKE _ene"))
            #expect(try Self.ids(database, where: #"["LIKE",[".name.first"],"J%e"]"#) == Self.expectedIDs("LIKE J%e (backtracking)"))
            #expect(try Self.ids(database, where: #"["COLLATE",{"unicode":true,"case":true,"diac":false},["LIKE",[".name.first"],"Jén%"]]"#)
                    == Self.expectedIDs("LIKE diacritic-insensitive, case-sensitive"))
            #expect(try Self.ids(database, where: #"["CONTAINS()",[".name.first"],"Jen"]"#) == Self.expectedIDs("CONTAINS Jen"))
            #expect(try Self.ids(database, where: #"["IN","reading",[".","likes"]]"#) == Self.expectedIDs("IN array property"))
            #expect(try Self.ids(database, where: state, orderBy: #"[[".","name","last"]]"#) == Self.expectedIDs("sorted by last name"))
            #expect(try Self.ids(database, where: #"["ANY","like",[".","likes"],["=",["?","like"],"climbing"]]"#) == Self.expectedIDs("ANY"))
            #expect(try Self.ids(database, where: #"["ANY AND EVERY","like",[".","likes"],["=",["?","like"],"taxes"]]"#)
                    == Self.expectedIDs("ANY AND EVERY taxes"))
            #expect(try Self.ids(database, where: #"["ANY","n",[".","name"],["=",["?","n"],"Arturo"]]"#) == Self.expectedIDs("ANY of dict"))
            let minMax = try database.createQuery(json: #"{"WHAT":[["min()",[".name.last"]],["max()",[".name.last"]]]}"#)
                .execute().map { [$0.string(at: 0) ?? "", $0.string(at: 1) ?? ""] }
            #expect(minMax == Self.expected("litecore_c4QueryTest", "Aggregate min/max")["expect_rows"] as? [[String]])
            // With an expression index on length(name.first), the same rows, through the index.
            let lengthIs9 = #"["=",["length()",[".name.first"]],9]"#
            let unindexed = try Self.ids(database, where: lengthIs9)
            try database.createIndex(IndexBuilder.valueIndex(items: ValueIndexItem.expression(Function.length(Expression.property("name.first")))),
                                     withName: "firstLength")
            #expect(try database.createQuery(json: #"{"WHAT":[["._id"]],"WHERE":\#(lengthIs9)}"#).explain().contains("firstLength"))
            #expect(try Self.ids(database, where: lengthIs9) == Self.expectedIDs("expression index length()"))
            #expect(unindexed == Self.expectedIDs("expression index length()"))
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func joinWithStates(engine: StorageEngineKind) throws {
        try withDatabase(engine) { database, _ in
            try Self.loadNames(database)
            let states = try #require(try JSONSerialization.jsonObject(with: try Fixtures.data("query/states_titlecase.json")) as? [[String: Any]])
            try database.inBatch {
                for state in states {
                    try database.saveDocument(MutableDocument(id: "state-\(state["abbreviation"] as? String ?? "")", data: state))
                }
            }
            let query = try database.createQuery(json: #"""
                {"WHAT":[[".person.name.first"],[".state.name"]],
                 "FROM":[{"as":"person"},{"as":"state","on":["=",[".state.abbreviation"],[".person.contact.address.state"]]}],
                 "WHERE":[">=",["length()",[".person.name.first"]],9],
                 "ORDER_BY":[[".person.name.first"]]}
                """#)
            let rows = try query.execute().map { [$0.string(at: 0) ?? "", $0.string(at: 1) ?? ""] }
            #expect(rows == Self.expected("litecore_c4QueryTest", "Join with states_titlecase.json")["expect_rows"] as? [[String]])

            // The builder's spelling, probing the joined side by an index on abbreviation.
            try database.createIndex(IndexBuilder.valueIndex(items: ValueIndexItem.property("abbreviation")), withName: "byAbbreviation")
            let built = QueryBuilder.select(SelectResult.expression(Expression.property("name.first").from("person")),
                                            SelectResult.expression(Expression.property("name").from("state")))
                .from(DataSource.database(database).as("person"))
                .join(Join.join(DataSource.database(database).as("state"))
                    .on(Expression.property("abbreviation").from("state")
                        .equalTo(Expression.property("contact.address.state").from("person"))))
                .where(Function.length(Expression.property("name.first").from("person")).greaterThanOrEqualTo(Expression.int(9)))
                .orderBy(Ordering.expression(Expression.property("name.first").from("person")))
            #expect(try built.explain().contains("through index \"byAbbreviation\""))
            #expect(try built.execute().map { [$0.string(at: 0) ?? "", $0.string(at: 1) ?? ""] } == rows)

            // LEFT OUTER keeps people whose state is not in the list; INNER drops them.
            let outer = try database.createQuery(json: #"""
                {"WHAT":[["._id"],[".state.name"]],
                 "FROM":[{"AS":"person"},{"AS":"state","JOIN":"LEFT OUTER","ON":["=",[".state.abbreviation"],[".person.contact.address.state"]]}],
                 "WHERE":["IS VALUED",[".person.gender"]]}
                """#).execute().allResults()
            #expect(outer.count == 100)
            let inner = try database.createQuery(json: #"""
                {"WHAT":[["._id"]],
                 "FROM":[{"AS":"person"},{"AS":"state","JOIN":"INNER","ON":["=",[".state.abbreviation"],[".person.contact.address.state"]]}],
                 "WHERE":["IS VALUED",[".person.gender"]]}
                """#).execute().allResults()
            let unmatched = outer.filter { $0.value(at: 1) == nil }.count
            #expect(inner.count == 100 - unmatched)
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func unnest(engine: StorageEngineKind) throws {
        try withDatabase(engine) { database, _ in
            try Self.loadNames(database)
            let query = try database.createQuery(json: #"""
                {"WHAT":[[".person._id"],[".like"]],
                 "FROM":[{"as":"person"},{"as":"like","unnest":[".person.likes"]}],
                 "WHERE":[">",[".like"],"snowboarding"],
                 "ORDER_BY":[[".like"],[".person._id"]]}
                """#)
            let rows = try query.execute().map { "\($0.string(at: 0) ?? ""), \($0.string(at: 1) ?? "")" }
            #expect(rows == Self.expected("litecore_c4QueryTest", "UNNEST likes > snowboarding")["expect_rows"] as? [String])
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func nestedAndPaths(engine: StorageEngineKind) throws {
        try withDatabase(engine) { database, _ in
            try Self.loadLines(database, "nested.json")
            let red = try Self.ids(database, where: #"["ANY","Shape",[".shapes"],["=",["?Shape.color"],"red"]]"#)
            #expect(red == ["0000001", "0000003"])
            let colors = try database.createQuery(json: #"""
                {"WHAT":[[".shape.color"]],"DISTINCT":true,"FROM":[{"as":"doc"},{"as":"shape","unnest":[".doc.shapes"]}],
                 "ORDER_BY":[[".shape.color"]]}
                """#).execute().map { $0.string(at: 0) ?? "" }
            #expect(colors == ["blue", "cyan", "green", "red", "white", "yellow"])
            let total = try database.createQuery(json: #"""
                {"WHAT":[["sum()",[".shape.size"]]],"FROM":[{"as":"doc"},{"as":"shape","unnest":[".doc.shapes"]}]}
                """#).execute().map { $0.int(at: 0) }
            #expect(total == [32])
            let redTotal = try database.createQuery(json: #"""
                {"WHAT":[["sum()",[".shape.size"]]],"FROM":[{"as":"doc"},{"as":"shape","unnest":[".doc.shapes"]}],
                 "WHERE":["=",[".shape.color"],"red"]}
                """#).execute().map { $0.int(at: 0) }
            #expect(redTotal == [11])
        }
        try withDatabase(engine) { database, _ in
            try Self.loadLines(database, "paths.json")
            #expect(try Self.ids(database, where: #"["ANY","path",[".paths"],["=",["?path.city"],"San Jose"]]"#) == ["0000001"])
            #expect(try Self.ids(database, where: #"["ANY","path",[".paths"],["=",["?path.city"],"Palo Alto"]]"#) == ["0000001", "0000002"])
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func iOSQueryTests(engine: StorageEngineKind) throws {
        try withDatabase(engine) { database, _ in
            try Self.loadNames(database, iOSIDs: true)
            let group = "ios_swift_QueryTest"
            let all = try database.createQuery(json: #"{"WHAT":[["._id"]]}"#).execute().map { $0.string(at: 0) ?? "" }
            #expect(all == (1...100).map { String(format: "doc-%03d", $0) })
            let first = Expression.property("name.first")
            let like = QueryBuilder.select(SelectResult.expression(first)).from(DataSource.database(database))
                .where(first.like(Expression.string("%Mar%"))).orderBy(Ordering.expression(first))
            #expect(try like.execute().allResults().count == Self.expected(group, "testWhereLike")["expect_count"] as? Int)
            let names = try #require(Self.expected(group, "testWhereIn")["expect_first_names"] as? [String])
            let inQuery = QueryBuilder.select(SelectResult.expression(first)).from(DataSource.database(database))
                .where(first.in(names.map { Expression.string($0) })).orderBy(Ordering.expression(first))
            #expect(try inQuery.execute().map { $0.string(at: 0) ?? "" } == names)
            let regex = QueryBuilder.select(SelectResult.expression(first)).from(DataSource.database(database))
                .where(first.regex(Expression.string("^Mar.*"))).orderBy(Ordering.expression(first))
            #expect(try regex.execute().allResults().count == Self.expected(group, "testWhereRegex")["expect_count"] as? Int)

            let state = Expression.property("contact.address.state")
            let grouped = QueryBuilder.select(SelectResult.expression(state), SelectResult.expression(Function.count(Expression.int(1))),
                                              SelectResult.expression(Function.max(Expression.property("contact.address.zip"))))
                .from(DataSource.database(database)).where(Expression.property("gender").equalTo(Expression.string("female")))
                .groupBy(state).orderBy(Ordering.expression(state))
            let rows = try grouped.execute().allResults()
            #expect(rows.count == Self.expected(group, "testGroupBy")["expect_count"] as? Int)
            let firstRows = try #require(Self.expected(group, "testGroupBy")["expect_first_rows"] as? [[Any]])
            for (row, expectedRow) in zip(rows, firstRows) {
                #expect(row.string(at: 0) == expectedRow[0] as? String)
                #expect(row.int(at: 1) == expectedRow[1] as? Int)
                #expect(row.string(at: 2) == expectedRow[2] as? String)
            }
            let having = QueryBuilder.select(SelectResult.expression(state), SelectResult.expression(Function.count(Expression.int(1))),
                                             SelectResult.expression(Function.max(Expression.property("contact.address.zip"))))
                .from(DataSource.database(database)).where(Expression.property("gender").equalTo(Expression.string("female")))
                .groupBy(state).having(Function.count(Expression.int(1)).greaterThan(Expression.int(1))).orderBy(Ordering.expression(state))
            #expect(try having.execute().allResults().count == Self.expected(group, "testGroupBy HAVING count>1")["expect_count"] as? Int)

            let variable = ArrayExpression.variable("like")
            let quantified = QueryBuilder.select(SelectResult.expression(Meta.id)).from(DataSource.database(database))
                .where(ArrayExpression.any(variable).in(Expression.property("likes")).satisfies(variable.equalTo(Expression.string("climbing"))))
            #expect(try quantified.execute().map { $0.string(at: 0) ?? "" }
                    == Self.expected(group, "testQuantifiedOperators")["expect"] as? [String])
        }
    }
}

/// The join and UNNEST cases written as SQL++ give the JSON queries' rows.
@Suite(.ownThreads) struct SQLPlusPlusJoinTests {
    @Test(arguments: StorageEngineKind.allCases)
    func joinsAndUnnestInSQLPlusPlus(engine: StorageEngineKind) throws {
        try withDatabase(engine) { database, _ in
            try database.inBatch {
                try database.saveDocument(MutableDocument(id: "p1", data: ["name": "Ann", "state": "CA", "likes": ["a", "b"]]))
                try database.saveDocument(MutableDocument(id: "p2", data: ["name": "Bob", "state": "XX", "likes": ["c"]]))
                try database.saveDocument(MutableDocument(id: "s-CA", data: ["abbreviation": "CA", "title": "California"]))
            }
            let inner = try database.createQuery("""
                SELECT p.name, s.title FROM _ AS p JOIN _ AS s ON s.abbreviation = p.state ORDER BY p.name
                """).execute().map { [$0.string(at: 0) ?? "", $0.string(at: 1) ?? "-"] }
            #expect(inner == [["Ann", "California"]])
            let outer = try database.createQuery("""
                SELECT p.name, s.title FROM _ p LEFT OUTER JOIN _ s ON s.abbreviation = p.state
                WHERE p.name IS VALUED ORDER BY p.name
                """).execute().map { [$0.string(at: 0) ?? "", $0.string(at: 1) ?? "-"] }
            #expect(outer == [["Ann", "California"], ["Bob", "-"]])
            let byID = try database.createQuery("""
                SELECT p.name FROM _ AS p JOIN _ AS s ON META(s).id = 's-' || p.state
                """).execute().map { $0.string(at: 0) ?? "" }
            #expect(byID == ["Ann"])
            let unnested = try database.createQuery("""
                SELECT META(p).id, l FROM _ AS p UNNEST p.likes AS l ORDER BY l DESC
                """).execute().map { "\($0.string(at: 0) ?? ""):\($0.string(at: 1) ?? "")" }
            #expect(unnested == ["p2:c", "p1:b", "p1:a"])
            let join = #expect(throws: CouchbaseLiteError.self) { try database.createQuery("SELECT name FROM _ JOIN _ AS s ON s.x = 1") }
            #expect(join?.code == .invalidQuery)
        }
    }
}
