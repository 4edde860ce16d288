import Testing
import TestSupport
@testable import SQLiteStorage

/// Reading LiteCore's `CREATE INDEX` statements: files from before Couchbase Lite 2.5 have no
/// `indexes` table, so a value index's definition is derived from its SQL.
@Suite(.ownThreads) struct LiteCoreIndexSQLTests {
    @Test func theCouchbaseLite28StatementGivesItsJSONExpressions() throws {
        // The statement Couchbase Lite 2.8 wrote into v2/upgrade_2.8_index.cblite2.
        let parsed = try #require(LiteCoreIndexSQL(#"CREATE INDEX "index1" ON "kv_default" (fl_value(body, 'firstName'), fl_value(body, 'lastName'))"#))
        #expect(parsed.columns == ["fl_value(body, 'firstName')", "fl_value(body, 'lastName')"])
        #expect(!parsed.isPartial)
        #expect(parsed.jsonExpression == #"[[".firstName"],[".lastName"]]"#)
    }

    @Test func plainPropertyIndexesAreWrittenBackAsLiteCoreWritesThem() throws {
        let statement = LiteCoreIndexSQL.createStatement(name: "index1", table: "kv_default",
                                                         jsonExpression: #"[[".firstName"],[".lastName"]]"#)
        #expect(statement == #"CREATE INDEX "index1" ON "kv_default" (fl_value(body, 'firstName'), fl_value(body, 'lastName'))"#)
        let quoted = try #require(LiteCoreIndexSQL.createStatement(name: #"a"b"#, table: "kv_default",
                                                                   jsonExpression: #"[[".it's"]]"#))
        #expect(LiteCoreIndexSQL(quoted)?.jsonExpression == #"[[".it's"]]"#)
        #expect(LiteCoreIndexSQL.createStatement(name: "i", table: "kv_default", jsonExpression: #"[["lower()",[".a"]]]"#) == nil)
        #expect(LiteCoreIndexSQL.createStatement(name: "i", table: "kv_default", jsonExpression: "[]") == nil)
    }

    @Test func quotesAndNestedPathsSurvive() throws {
        let parsed = try #require(LiteCoreIndexSQL(#"CREATE INDEX "a (b), c" ON kv_default (fl_value(body, 'it''s.x[0]'),fl_value( body , 'q"\.r' ))"#))
        #expect(parsed.columns.count == 2)
        #expect(parsed.jsonExpression == #"[[".it's.x[0]"],[".q\"\\.r"]]"#)
    }

    @Test func otherExpressionsAndPartialIndexesAreNotDerived() throws {
        let function = try #require(LiteCoreIndexSQL("CREATE INDEX i ON kv_default (lower(fl_value(body, 'name')))"))
        #expect(function.columns == ["lower(fl_value(body, 'name'))"])
        #expect(function.jsonExpression == nil)
        let partial = try #require(LiteCoreIndexSQL("CREATE INDEX i ON kv_default (fl_value(body, 'a')) WHERE fl_value(body, 'b') = 1"))
        #expect(partial.isPartial)
        #expect(partial.jsonExpression == nil)
        let expiration = try #require(LiteCoreIndexSQL("CREATE INDEX kv_default_expiration ON kv_default (expiration) WHERE expiration not null"))
        #expect(expiration.jsonExpression == nil)
        #expect(LiteCoreIndexSQL("CREATE INDEX broken ON kv_default (fl_value(body, 'a')") == nil)
        #expect(LiteCoreIndexSQL("CREATE INDEX none ON kv_default") == nil)
    }
}
