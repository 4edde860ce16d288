import CSQLite
import Testing
import TestSupport
import Upgrader

/// Parsing, printing and ordering of 1.x revision IDs (and the `REVID` collation).
@Suite(.ownThreads) struct LegacyRevisionIDTests {
    @Test func aMD5RevisionIDParsesAndPrintsBack() throws {
        let text = "2-db9941f74d7fd45d60c272b796ae50c7"
        let revID = try #require(LegacyRevisionID(text))
        #expect(revID.generation == 2)
        #expect(revID.digest.count == 16)
        #expect(revID.string == text)
    }

    @Test(arguments: ["", "-", "1-", "1-a", "1-AB", "a-ab", "0-ab", "1_ab", "1-ab-cd",
                      "123456789012345678901-ab", "18446744073709551616-ab"])
    func malformedRevisionIDsAreRejected(text: String) {
        #expect(LegacyRevisionID(text) == nil)
    }

    @Test func theLargestGenerationParses() {
        #expect(LegacyRevisionID("18446744073709551615-ab")?.generation == UInt64.max)
    }

    @Test func orderIsGenerationThenDigest() throws {
        let ordered = ["1-ff", "2-00", "2-0000", "2-01", "10-00"].compactMap(LegacyRevisionID.init)
        #expect(ordered.count == 5)
        #expect(ordered.sorted() == ordered)
        #expect(ordered.shuffled().sorted() == ordered)
    }

    @Test func theSQLiteCollationOrdersLikeTheType() throws {
        var connection: OpaquePointer?
        #expect(sqlite3_open(":memory:", &connection) == SQLITE_OK)
        defer { sqlite3_close(connection) }
        let db = try #require(connection)
        #expect(LegacyRevisionID.registerCollation(on: db) == SQLITE_OK)
        let values = ["10-00", "9-ff", "garbage", "3-ac", "3-ab", "2-0000", "2-00"]
        let inserts = values.map { "INSERT INTO t VALUES ('\($0)');" }.joined()
        #expect(sqlite3_exec(db, "CREATE TABLE t (r TEXT COLLATE REVID);" + inserts, nil, nil, nil) == SQLITE_OK)
        var statement: OpaquePointer?
        #expect(sqlite3_prepare_v2(db, "SELECT r FROM t ORDER BY r", -1, &statement, nil) == SQLITE_OK)
        defer { sqlite3_finalize(statement) }
        var sorted: [String] = []
        while sqlite3_step(statement) == SQLITE_ROW { sorted.append(String(cString: sqlite3_column_text(statement, 0))) }
        #expect(sorted == ["garbage", "2-00", "2-0000", "3-ab", "3-ac", "9-ff", "10-00"])
    }
}
