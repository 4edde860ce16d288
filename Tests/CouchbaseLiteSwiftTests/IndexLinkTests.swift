import CouchbaseLiteSwift
import CSQLite
import Foundation
import LiteStorage
import Testing
import TestSupport

/// On the SQLite engine a value index made by this version keeps, beside each entry, the rowid
/// of its document's row, and queries join through it. A link that went stale (the rows were
/// renumbered, as VACUUM or another program may do) is never trusted: the entry is looked up by
/// its key and the rows stay the same.
@Suite(.ownThreads) struct IndexLinkTests {
    private static let name = "links"
    private static let table = "\"bk_value:byV\""

    private func open(_ directory: TemporaryDirectory) throws -> Database {
        let config = DatabaseConfiguration()
        config.directory = directory.path
        return try Database(name: Self.name, config: config)
    }

    /// The first column of the first row of `sql`, run with the raw SQLite API (as another
    /// program would), as an integer.
    private func integer(_ sql: String, in directory: TemporaryDirectory) throws -> Int64 {
        var handle: OpaquePointer?
        let path = directory.appending(Self.name + ".cblite2/db.sqlite3").path
        guard sqlite3_open(path, &handle) == SQLITE_OK else { throw StorageError(.ioError, "cannot open \(path)") }
        defer { sqlite3_close(handle) }
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK else {
            throw StorageError(.unexpectedError, String(cString: sqlite3_errmsg(handle)))
        }
        defer { sqlite3_finalize(statement) }
        let result = sqlite3_step(statement)
        guard result == SQLITE_ROW || result == SQLITE_DONE else {
            throw StorageError(.unexpectedError, String(cString: sqlite3_errmsg(handle)))
        }
        return result == SQLITE_ROW ? sqlite3_column_int64(statement, 0) : 0
    }

    private func answers(_ database: Database) throws -> [[String]] {
        try (0..<6).map { value in
            try database.createQuery(json: #"{"WHAT":[["._id"],[".other"]],"WHERE":["=",[".v"],\#(value)]}"#)
                .execute().map { "\($0.toArray())" }
        }
    }

    @Test func queriesThroughStaleLinksReturnTheSameRows() throws {
        let directory = try TemporaryDirectory()
        var random = SplitMix64(seed: 97)
        var expected: [[String]] = []
        do {
            let database = try open(directory)
            defer { try? database.close() }
            try database.inBatch {
                for number in 0..<300 {
                    let document = MutableDocument(id: String(format: "d%03d", number))
                    document.setInt(Int.random(in: 0...5, using: &random), forKey: "v")
                    document.setString(String(repeating: "x", count: Int.random(in: 0...5_000, using: &random)), forKey: "other")
                    try database.saveDocument(document)
                }
            }
            try database.createIndex(IndexBuilder.valueIndex(items: ValueIndexItem.property("v")), withName: "byV")
            // Saved after the index: their entries are linked as they are written.
            for number in 300..<320 {
                try database.saveDocument(MutableDocument(id: String(format: "d%03d", number), data: ["v": number % 6, "other": "late"]))
            }
            expected = try answers(database)
            #expect(expected.map(\.count).reduce(0, +) == 320)
        }
        // Every entry names its document's row.
        let entries = try integer("SELECT count(*) FROM \(Self.table) WHERE key >= x'01'", in: directory)
        let linked = try integer("""
            SELECT count(*) FROM \(Self.table) AS ix JOIN kv_default AS kv
            ON kv.rowid = ix."rowid in kv_default" AND kv.key = CAST(ix.value AS TEXT)
            """, in: directory)
        #expect(entries == 320 && linked == 320)

        // Renumber the rows backwards, as no writer of ours does: most links now name another
        // document, some none.
        _ = try integer("UPDATE kv_default SET rowid = -rowid", in: directory)
        _ = try integer("UPDATE kv_default SET rowid = 400 + rowid", in: directory)
        let stillRight = try integer("""
            SELECT count(*) FROM \(Self.table) AS ix JOIN kv_default AS kv
            ON kv.rowid = ix."rowid in kv_default" AND kv.key = CAST(ix.value AS TEXT)
            """, in: directory)
        #expect(stillRight < 10)

        let database = try open(directory)
        defer { try? database.close() }
        #expect(try database.createQuery(json: #"{"WHAT":[["._id"]],"WHERE":["=",[".v"],1]}"#).explain().contains("byV"))
        #expect(try answers(database) == expected)
    }
}
