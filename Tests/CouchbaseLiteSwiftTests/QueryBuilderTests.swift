import CouchbaseLiteSwift
import Foundation
import Testing
import TestSupport

/// The builder API compiles to Couchbase Lite's JSON query syntax (LiteCore's `JSON-Query-Schema`).
@Suite(.ownThreads) struct QueryBuilderTests {
    private func withQueryDatabase(_ body: (Database) throws -> Void) throws {
        try withDatabase(.sqlite) { database, _ in try body(database) }
    }

    @Test func aFilteredSortedLimitedSelect() throws {
        try withQueryDatabase { database in
            let query = QueryBuilder
                .select(SelectResult.expression(Meta.id), SelectResult.property("name"))
                .from(DataSource.database(database))
                .where(Expression.property("type").equalTo(Expression.string("hotel")))
                .orderBy(Ordering.property("name").descending())
                .limit(Expression.int(10), offset: Expression.int(5))
            #expect(query.jsonRepresentation == #"{"LIMIT":10,"OFFSET":5,"ORDER_BY":[["DESC",[".name"]]],"#
                    + #""WHAT":[["._id"],[".name"]],"WHERE":["=",[".type"],"hotel"]}"#)
        }
    }

    @Test func operatorsFunctionsAndParameters() throws {
        try withQueryDatabase { database in
            let query = QueryBuilder
                .selectDistinct(SelectResult.expression(Function.upper(Expression.property("city"))).as("CITY"))
                .from(DataSource.database(database))
                .where(Expression.property("name").like(Expression.string("royal%"))
                    .and(Expression.property("stars").between(Expression.int(3), and: Expression.parameter("max")))
                    .or(Expression.property("country").in([Expression.string("France"), Expression.string("Spain")]))
                    .and(Expression.not(Expression.property("closed").isNullOrMissing())))
            #expect(query.jsonRepresentation == #"{"DISTINCT":true,"WHAT":[["AS",["UPPER()",[".city"]],"CITY"]],"#
                    + #""WHERE":["AND",["OR",["AND",["LIKE",[".name"],"royal%"],["BETWEEN",[".stars"],3,["$max"]]],"#
                    + #"["IN",[".country"],["[]","France","Spain"]]],["NOT",["OR",["IS",[".closed"],null],"#
                    + #"["IS",[".closed"],["MISSING"]]]]]}"#)
        }
    }

    @Test func joinsGroupingAndHaving() throws {
        try withQueryDatabase { database in
            let query = QueryBuilder
                .select(SelectResult.expression(Expression.property("name").from("airline")),
                        SelectResult.expression(Function.count(Expression.all())).as("routes"))
                .from(DataSource.database(database).as("route"))
                .join(Join.join(DataSource.database(database).as("airline"))
                    .on(Meta.id.from("airline").equalTo(Expression.property("airlineid").from("route"))))
                .groupBy(Expression.property("name").from("airline"))
                .having(Function.count(Expression.all()).greaterThan(Expression.int(100)))
            #expect(query.jsonRepresentation == #"{"FROM":[{"AS":"route"},{"AS":"airline","JOIN":"INNER","#
                    + #""ON":["=",[".airline._id"],[".route.airlineid"]]}],"GROUP_BY":[[".airline.name"]],"#
                    + #""HAVING":[">",["COUNT()",["."]],100],"WHAT":[[".airline.name"],["AS",["COUNT()",["."]],"routes"]]}"#)
        }
    }

    @Test func arrayExpressionsCollationAndFullText() throws {
        try withQueryDatabase { database in
            let like = ArrayExpression.variable("like")
            let query = QueryBuilder
                .select(SelectResult.all())
                .from(DataSource.database(database))
                .where(ArrayExpression.any(like).in(Expression.property("public_likes"))
                    .satisfies(like.equalTo(Expression.string("Armani Langworth")))
                    .and(Expression.property("name").collate(Collation.unicode().ignoreCase(true).ignoreAccents(true))
                        .equalTo(Expression.string("ecole")))
                    .and(FullTextExpression.index("descIndex").match("buy")))
                .orderBy(Ordering.expression(FullTextFunction.rank("descIndex")).descending())
            #expect(query.jsonRepresentation == #"{"ORDER_BY":[["DESC",["RANK()","descIndex"]]],"WHAT":[["."]],"#
                    + #""WHERE":["AND",["AND",["ANY","like",[".public_likes"],["=",["?like"],"Armani Langworth"]],"#
                    + #"["=",["COLLATE",{"CASE":false,"DIAC":false,"UNICODE":true},[".name"]],"ecole"]],"#
                    + #"["MATCH()","descIndex","buy"]]}"#)
        }
    }

    @Test func literalsOfEveryKind() throws {
        try withQueryDatabase { database in
            let query = QueryBuilder.select(
                SelectResult.expression(Expression.value(["a": 1, "b": [true, "x", 2.5]] as [String: Any])),
                SelectResult.expression(Expression.date(Date(timeIntervalSince1970: 0))),
                SelectResult.expression(Expression.value(nil)),
                SelectResult.expression(Expression.double(2.0)))
                .from(DataSource.database(database))
            #expect(query.jsonRepresentation == #"{"WHAT":[{"a":1,"b":["[]",true,"x",2.5]},"1970-01-01T00:00:00.000Z",null,2.0]}"#)
        }
    }

    @Test func parametersKeepTheirValues() {
        let parameters = Parameters().setString("hotel", forName: "type").setInt(3, forName: "stars")
        #expect(parameters.value(forName: "type") as? String == "hotel")
        #expect(parameters.value(forName: "stars") as? Int64 == 3)
        let copy = Parameters(parameters: parameters).setBoolean(true, forName: "open")
        #expect(copy.value(forName: "open") as? Bool == true)
        #expect(parameters.value(forName: "open") == nil)
    }
}
