import CouchbaseLiteSwift
import Foundation
import Testing
import TestSupport

/// Queries run on real data sets with the answers the original projects expect: LiteCore's
/// c4QueryTest cases on names_100 (as JSON queries) and the iOS QueryTest cases (through the
/// builder), on both engines. The engine scans (indexes come next); joins, UNNEST and MATCH are
/// not supported yet and are left out here.
@Suite(.ownThreads) struct QueryExecutionTests {
    /// A database holding names_100.json, IDs `0000001`… (LiteCore's) or `doc-001`… (iOS's).
    private func withNames<T>(_ engine: StorageEngineKind, ids: (Int) -> String,
                              _ body: (Database) throws -> T) throws -> T {
        try withDatabase(engine) { database, _ in
            let lines = String(decoding: try Fixtures.data("query/names_100.json"), as: UTF8.self)
                .split(separator: "\n").filter { !$0.isEmpty }
            try database.inBatch {
                for (index, line) in lines.enumerated() {
                    try database.saveDocument(try MutableDocument(id: ids(index + 1), json: String(line)))
                }
            }
            return try body(database)
        }
    }

    private func liteCoreIDs(_ number: Int) -> String { String(format: "%07d", number) }

    private func ids(_ database: Database, where condition: String, orderBy: String? = nil,
                     offset: Int? = nil, limit: Int? = nil) throws -> [String] {
        var json = #"{"WHAT":[["._id"]],"WHERE":\#(condition)"#
        if let orderBy { json += #","ORDER_BY":\#(orderBy)"# }
        if let offset { json += #","OFFSET":\#(offset)"# }
        if let limit { json += #","LIMIT":\#(limit)"# }
        json += "}"
        return try database.createQuery(json: json).execute().map { $0.string(at: 0) ?? "?" }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func liteCoreWhereCases(engine: StorageEngineKind) throws {
        try withNames(engine, ids: liteCoreIDs) { database in
            let ca = #"["=",[".","contact","address","state"],"CA"]"#
            #expect(try ids(database, where: ca) == ["0000001", "0000015", "0000036", "0000043", "0000053", "0000064", "0000072", "0000073"])
            #expect(try ids(database, where: ca, offset: 1, limit: 4) == ["0000015", "0000036", "0000043", "0000053"])
            #expect(try ids(database, where: #"["IS",[".","contact","phone",[0]],["MISSING"]]"#, offset: 0, limit: 4)
                    == ["0000004", "0000006", "0000008", "0000015"])
            #expect(try ids(database, where: #"["LIKE",[".name.first"],"Jen%"]"#) == ["0000008", "0000028"])
            #expect(try ids(database, where: #"["LIKE",[".name.first"],"_ene"]"#) == ["0000028"])
            #expect(try ids(database, where: #"["LIKE",[".name.first"],"J%e"]"#) == ["0000028", "0000052", "0000088"])
            #expect(try ids(database, where: #"["COLLATE",{"unicode":true,"case":true,"diac":false},["LIKE",[".name.first"],"Jén%"]]"#)
                    == ["0000008", "0000028"])
            #expect(try ids(database, where: #"["CONTAINS()",[".name.first"],"Jen"]"#) == ["0000008", "0000028"])
            #expect(try ids(database, where: #"["IN","reading",[".","likes"]]"#) == ["0000004", "0000056", "0000064", "0000079", "0000099"])
            #expect(try ids(database, where: ca, orderBy: #"[[".","name","last"]]"#)
                    == ["0000015", "0000036", "0000072", "0000043", "0000001", "0000064", "0000073", "0000053"])
            #expect(try ids(database, where: #"["ANY","like",[".","likes"],["=",["?","like"],"climbing"]]"#)
                    == ["0000017", "0000021", "0000023", "0000045", "0000060"])
            #expect(try ids(database, where: #"["ANY AND EVERY","like",[".","likes"],["=",["?","like"],"taxes"]]"#) == [])
            #expect(try ids(database, where: #"["ANY","n",[".","name"],["=",["?","n"],"Arturo"]]"#) == ["0000090"])
            #expect(try ids(database, where: #"["=",["length()",[".name.first"]],9]"#) == ["0000015", "0000099"])
            let extremes = try database.createQuery(json: #"{"WHAT":[["min()",[".name.last"]],["max()",[".name.last"]]]}"#)
                .execute().allResults()
            #expect(extremes.map { $0.toArray() as? [String] } == [["Aerni", "Zirk"]])
            #expect(try database.createQuery(json: #"{"LIMIT":10,"OFFSET":90}"#).execute().allResults().count == 10)
        }
    }

    private func iosIDs(_ number: Int) -> String { String(format: "doc-%03d", number) }

    @Test(arguments: StorageEngineKind.allCases)
    func iosQueryTestCasesThroughTheBuilder(engine: StorageEngineKind) throws {
        try withNames(engine, ids: iosIDs) { database in
            let all = try QueryBuilder.select(SelectResult.expression(Meta.id)).from(DataSource.database(database))
                .execute().allResults()
            #expect(all.count == 100)
            #expect(all.first?.string(forKey: "id") == "doc-001")

            let first = Expression.property("name.first")
            let likeMar = try QueryBuilder.select(SelectResult.property("name.first"))
                .from(DataSource.database(database)).where(first.like(Expression.string("%Mar%")))
                .orderBy(Ordering.property("name.first")).execute().allResults()
            #expect(likeMar.count == 5)

            let names = ["Marcy", "Margaretta", "Margrett", "Marlen", "Maryjo"]
            let inNames = try QueryBuilder.select(SelectResult.property("name.first"))
                .from(DataSource.database(database)).where(first.in(names.map { Expression.string($0) }))
                .orderBy(Ordering.property("name.first")).execute().map { $0.string(forKey: "first") }
            #expect(inNames == names)

            let regex = try QueryBuilder.select(SelectResult.expression(Meta.id)).from(DataSource.database(database))
                .where(first.regex(Expression.string("^Mar.*"))).execute().allResults()
            #expect(regex.count == 5)

            let state = Expression.property("contact.address.state")
            let grouped = try QueryBuilder.select(SelectResult.expression(state),
                                                  SelectResult.expression(Function.count(Expression.int(1))),
                                                  SelectResult.expression(Function.max(Expression.property("contact.address.zip"))))
                .from(DataSource.database(database)).where(Expression.property("gender").equalTo(Expression.string("female")))
                .groupBy(state).orderBy(Ordering.expression(state)).execute().allResults()
            let firstRows = grouped.prefix(2).map { [$0.string(at: 0) ?? "", String($0.int(at: 1)), $0.string(at: 2) ?? ""] }
            #expect(firstRows == [["AL", "1", "35243"], ["CA", "6", "94153"]])

            let having = try QueryBuilder.select(SelectResult.expression(state),
                                                 SelectResult.expression(Function.count(Expression.int(1))),
                                                 SelectResult.expression(Function.max(Expression.property("contact.address.zip"))))
                .from(DataSource.database(database)).where(Expression.property("gender").equalTo(Expression.string("female")))
                .groupBy(state).having(Function.count(Expression.int(1)).greaterThan(Expression.int(1)))
                .orderBy(Ordering.expression(state)).execute().allResults()
            #expect(having.count == 15)
            #expect(having.prefix(3).map { [$0.string(at: 0) ?? "", String($0.int(at: 1))] } == [["CA", "6"], ["IA", "3"], ["IN", "2"]])

            let like = ArrayExpression.variable("like")
            let climbers = try QueryBuilder.select(SelectResult.expression(Meta.id)).from(DataSource.database(database))
                .where(ArrayExpression.any(like).in(Expression.property("likes"))
                    .satisfies(like.equalTo(Expression.string("climbing"))))
                .execute().map { $0.string(at: 0) ?? "" }
            #expect(climbers == ["doc-017", "doc-021", "doc-023", "doc-045", "doc-060"])

            let rows = try QueryBuilder.select(SelectResult.property("name.first").as("firstname"),
                                               SelectResult.property("name.last").as("lastname"),
                                               SelectResult.property("gender"),
                                               SelectResult.property("contact.address.city").as("city"))
                .from(DataSource.database(database)).execute().allResults()
            #expect(rows.count == 100)
            for row in rows {
                #expect(row.count == 4)
                #expect(row.string(forKey: "firstname") == row.string(at: 0))
                #expect(row.string(forKey: "city") == row.string(at: 3))
            }
        }
    }

    /// A variable's path may follow its name as operands, as 2.8's JSON queries write it.
    @Test(arguments: StorageEngineKind.allCases)
    func variablePathsInEveryJSONSpelling(engine: StorageEngineKind) throws {
        try withDatabase(engine) { database, _ in
            try database.saveDocument(MutableDocument(id: "a", json: #"{"reviews":[{"ratings":{"Overall":3}},{"ratings":{"Overall":5}}]}"#))
            try database.saveDocument(MutableDocument(id: "b", json: #"{"reviews":[{"ratings":{"Overall":4}}]}"#))
            try database.saveDocument(MutableDocument(id: "c", json: #"{"reviews":[{"ratings.Overall":3}]}"#))
            for variable in [#"["?r.ratings.Overall"]"#, #"["?r","ratings","Overall"]"#, #"["?","r","ratings","Overall"]"#,
                             #"["?r.ratings","Overall"]"#] {
                let query = try database.createQuery(json: #"{"WHAT":[["._id"]],"WHERE":["ANY","r",[".reviews"],["=","#
                                                     + variable + ",3]]}")
                #expect(try query.execute().map { $0.string(at: 0) } == ["a"], "\(variable)")
            }
            // An operand is one key, dots and all (2.8 reads it so too).
            let dotted = try database.createQuery(json: #"{"WHAT":[["._id"]],"WHERE":["ANY","r",[".reviews"],["=",["?r","ratings.Overall"],3]]}"#)
            #expect(try dotted.execute().map { $0.string(at: 0) } == ["c"])
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func aggregatesParametersAndMissingValues(engine: StorageEngineKind) throws {
        try withDatabase(engine) { database, _ in
            try database.inBatch {
                for number in 1...100 { try database.saveDocument(MutableDocument(id: "n\(number)", data: ["number": number])) }
                try database.saveDocument(MutableDocument(id: "other", data: ["name": "no number"]))
            }
            let n = Expression.property("number")
            let stats = try #require(try QueryBuilder.select(
                SelectResult.expression(Function.avg(n)), SelectResult.expression(Function.count(n)),
                SelectResult.expression(Function.min(n)), SelectResult.expression(Function.max(n)),
                SelectResult.expression(Function.sum(n))).from(DataSource.database(database)).execute().next())
            #expect(stats.double(at: 0) == 50.5)
            #expect(stats.int(at: 1) == 100)
            #expect(stats.int(at: 2) == 1)
            #expect(stats.int(at: 3) == 100)
            #expect(stats.int(at: 4) == 5050)

            let query = QueryBuilder.select(SelectResult.expression(Meta.id), SelectResult.property("number"))
                .from(DataSource.database(database)).where(n.greaterThanOrEqualTo(Expression.parameter("low")))
                .orderBy(Ordering.property("number").descending()).limit(Expression.int(2))
            query.parameters = Parameters().setInt(98, forName: "low")
            #expect(try query.execute().map { $0.int(forKey: "number") } == [100, 99])

            // MISSING is left out of the dictionary; NULL is kept.
            let missing = try #require(try QueryBuilder.select(SelectResult.property("number"), SelectResult.property("name"))
                .from(DataSource.database(database)).where(Meta.id.equalTo(Expression.string("other"))).execute().next())
            #expect(missing.toDictionary().keys.sorted() == ["name"])
            #expect(missing.value(forKey: "number") == nil)

            // IS [NOT] NULL is MISSING for a missing property (N1QL; 2.8 answers the same), so
            // neither keeps the 100 documents without a name; SUM of no numbers is NULL.
            for sql in ["SELECT META().id FROM _ WHERE name IS NULL", "SELECT META().id FROM _ WHERE name IS NOT NULL"] {
                let ids = try database.createQuery(sql).execute().map { $0.string(at: 0) }
                #expect(ids == (sql.hasSuffix("NOT NULL") ? ["other"] : []), "\(sql)")
            }
            let names = try #require(try database.createQuery("SELECT SUM(name), SUM(nothing), COUNT(name) FROM _")
                .execute().next())
            #expect(names.value(at: 0) is NSNull && names.value(at: 1) is NSNull && names.int(at: 2) == 1)
            let notNull = try database.createQuery(json: #"{"WHAT":[["._id"]],"WHERE":["IS NOT",[".name"],null]}"#)
            #expect(try notNull.execute().map { $0.string(at: 0) } == ["other"])
            let spelled = QueryBuilder.select(SelectResult.expression(Meta.id)).from(DataSource.database(database))
                .where(Expression.property("name").notNullOrMissing())
            #expect(try spelled.execute().map { $0.string(at: 0) } == ["other"])
        }
    }

    @Test func badQueriesAreInvalidQueryErrorsNamingWhere() throws {
        try withDatabase(.sqlite) { database, _ in
            let unknown = #expect(throws: CouchbaseLiteError.self) {
                try database.createQuery(json: #"{"WHERE":["NO_SUCH()",[".a"]]}"#).execute()
            }
            #expect(unknown?.code == .invalidQuery)
            #expect(unknown?.message.contains("WHERE") == true)
            let arity = #expect(throws: CouchbaseLiteError.self) {
                try database.createQuery(json: #"{"WHERE":["BETWEEN",[".a"],1]}"#).execute()
            }
            #expect(arity?.code == .invalidQuery && arity?.message.contains("BETWEEN takes 3") == true)
            let parameter = #expect(throws: CouchbaseLiteError.self) {
                try QueryBuilder.select(SelectResult.all()).from(DataSource.database(database))
                    .where(Expression.property("a").equalTo(Expression.parameter("unset"))).execute()
            }
            #expect(parameter?.code == .invalidQuery && parameter?.message.contains("$unset") == true)
            #expect(errorCode { _ = try database.createQuery(json: "{not json") } == .invalidQuery)
        }
    }
}
