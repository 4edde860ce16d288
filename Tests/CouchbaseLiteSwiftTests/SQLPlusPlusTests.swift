import CouchbaseLiteSwift
import Foundation
import Testing
import TestSupport

/// SQL++ strings give the same rows as the same queries written with the builder (and as JSON),
/// on both engines; syntax errors name the position; arbitrary text never crashes the parser.
@Suite(.ownThreads) struct SQLPlusPlusTests {
    private func withNames<T>(_ engine: StorageEngineKind, _ body: (Database) throws -> T) throws -> T {
        try withDatabase(engine) { database, _ in
            let lines = String(decoding: try Fixtures.data("query/names_100.json"), as: UTF8.self)
                .split(separator: "\n").filter { !$0.isEmpty }
            try database.inBatch {
                for (index, line) in lines.enumerated() {
                    try database.saveDocument(try MutableDocument(id: String(format: "doc-%03d", index + 1), json: String(line)))
                }
            }
            return try body(database)
        }
    }

    private func rows(_ query: Query) throws -> [[String: String]] {
        try query.execute().map { result in result.toDictionary().mapValues { "\($0)" } }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func sqlPlusPlusMatchesTheBuilder(engine: StorageEngineKind) throws {
        try withNames(engine) { database in
            let source = DataSource.database(database)
            let state = Expression.property("contact.address.state")
            let pairs: [(String, Query)] = [
                ("SELECT name.first, name.last FROM _ WHERE contact.address.state = 'CA' ORDER BY name.last",
                 QueryBuilder.select(SelectResult.property("name.first"), SelectResult.property("name.last")).from(source)
                    .where(state.equalTo(Expression.string("CA"))).orderBy(Ordering.property("name.last"))),
                ("select meta().id AS id from _ where name.first like '%mar%' order by name.first desc limit 3 offset 1",
                 QueryBuilder.select(SelectResult.expression(Meta.id).as("id")).from(source)
                    .where(Expression.property("name.first").like(Expression.string("%mar%")))
                    .orderBy(Ordering.property("name.first").descending()).limit(Expression.int(3), offset: Expression.int(1))),
                ("SELECT contact.address.state, COUNT(*) AS n FROM _ WHERE gender = 'female' GROUP BY contact.address.state "
                 + "HAVING COUNT(*) > 1 ORDER BY contact.address.state",
                 QueryBuilder.select(SelectResult.expression(state), SelectResult.expression(Function.count(Expression.all())).as("n"))
                    .from(source).where(Expression.property("gender").equalTo(Expression.string("female")))
                    .groupBy(state).having(Function.count(Expression.all()).greaterThan(Expression.int(1)))
                    .orderBy(Ordering.expression(state))),
                ("SELECT META().id FROM _ WHERE ANY like IN likes SATISFIES like = 'climbing' END",
                 QueryBuilder.select(SelectResult.expression(Meta.id)).from(source)
                    .where(ArrayExpression.any(ArrayExpression.variable("like")).in(Expression.property("likes"))
                        .satisfies(ArrayExpression.variable("like").equalTo(Expression.string("climbing"))))),
                ("SELECT DISTINCT gender FROM _ WHERE contact.address.zip BETWEEN '10000' AND '50000' "
                 + "OR contact.phone[0] IS MISSING ORDER BY gender",
                 QueryBuilder.selectDistinct(SelectResult.property("gender")).from(source)
                    .where(Expression.property("contact.address.zip").between(Expression.string("10000"), and: Expression.string("50000"))
                        .or(Expression.property("contact.phone[0]").is(Expression.value(["MISSING"] as [Any]).isNullOrMissing())
                            .or(Expression.property("contact.phone[0]").isNullOrMissing())))
                    .orderBy(Ordering.property("gender"))),
                ("SELECT name.first FROM _ AS p WHERE p.name.first IN ['Marcy', 'Maryjo'] AND LENGTH(p.name.first) > 4 ORDER BY p.name.first",
                 QueryBuilder.select(SelectResult.property("name.first")).from(source)
                    .where(Expression.property("name.first").in([Expression.string("Marcy"), Expression.string("Maryjo")])
                        .and(Function.length(Expression.property("name.first")).greaterThan(Expression.int(4))))
                    .orderBy(Ordering.property("name.first"))),
            ]
            for (sql, builder) in pairs {
                let expected = try rows(builder)
                #expect(!expected.isEmpty, "\(sql)")
                #expect(try rows(try database.createQuery(sql)) == expected, "\(sql)")
                #expect(try rows(try database.createQuery(json: builder.jsonRepresentation)) == expected)
            }
            let parameterized = try database.createQuery("SELECT META().id FROM _ WHERE name.first = $first")
            parameterized.parameters = Parameters().setString("Marcy", forName: "first")
            #expect(try parameterized.execute().allResults().count == 1)
        }
    }

    @Test(arguments: [
        ("SELECT FROM _", 8), ("SELECT name FROM _ WHERE", 25), ("SELECT name FROM _ WHERE a = 'open", 30),
        ("SELECT name FROM _ ORDER name", 26), ("SELECT a FROM _ WHERE a IS 3", 28), ("SELECT a FROM _ LIMIT 1 extra", 25),
    ])
    func syntaxErrorsNameThePosition(sql: String, character: Int) throws {
        try withDatabase(.sqlite) { database, _ in
            let error = #expect(throws: CouchbaseLiteError.self) { try database.createQuery(sql) }
            #expect(error?.code == .invalidQuery)
            #expect(error?.message.contains("character \(character)") == true, "\(sql): \(error?.message ?? "")")
        }
    }

    @Test func arbitraryTextNeverCrashesTheParser() throws {
        try withDatabase(.sqlite) { database, _ in
            let pieces = ["SELECT", "FROM", "_", "WHERE", "a", ".", "=", "'x'", "(", ")", "[", "]", ",", "ANY", "IN",
                          "SATISFIES", "END", "META", "$p", "1.5", "`q`", "NOT", "IS", "NULL", "*", "ORDER BY", "\"", "'"]
            var random = SplitMix64(seed: 2_024)
            for _ in 0..<3_000 {
                let count = Int.random(in: 0...12, using: &random)
                let text = (0..<count).map { _ in pieces[Int.random(in: 0..<pieces.count, using: &random)] }.joined(separator: " ")
                do {
                    _ = try database.createQuery(text)
                } catch let error as CouchbaseLiteError {
                    #expect(error.code == .invalidQuery)
                }
            }
        }
    }
}
