import CSQLite
import Foundation
import LiteDatabase
import RocksDBStorage
import SQLiteStorage
import Upgrader

/// Reading Couchbase Lite 1.x databases for migration, against raw SQLite running the same
/// queries on the same file in the same run.
enum UpgraderBenchmarks: BenchmarkArea {
    static let name = "upgrader"
    static let summary = "Reading and migrating 1.x databases (detection, private copy, documents, upgrade) vs raw SQLite."

    static func run(_ options: BenchmarkOptions) throws -> BenchmarkReport {
        let count = options.quick ? 1_000 : 10_000
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("cblite-bench-upgrader-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let bundle = try makeLegacyDatabase(in: folder, documents: count)
        var report = BenchmarkReport(area: name)

        var ourCount = 0, baselineCount = 0
        let ours = try Stopwatch.median(iterations: options.iterations) {
            let reader = try LegacyDatabaseReader(bundlePath: bundle.path, temporaryDirectory: folder)
            ourCount = try reader.readAllDocuments().count
            reader.close()
        }
        let baseline = try Stopwatch.median(iterations: options.iterations) {
            baselineCount = try rawRead(bundle)
        }
        guard ourCount == count, baselineCount == count else {
            throw BenchmarkFailure(description: "read \(ourCount) and \(baselineCount) documents, expected \(count)")
        }
        report.rows.append(BenchmarkRow(
            workload: "read \(count) 1.x docs (copy, checks, winner, history, JSON check, attachments)",
            ours: ours, baselineName: "raw SQLite: same queries on the file, no copy or checks",
            baseline: baseline, maximumRatio: nil))

        let detect = Stopwatch.median(iterations: options.iterations * 20) {
            _ = DatabaseFormat.detect(at: bundle.path)
        }
        let pragma = try Stopwatch.median(iterations: options.iterations * 20) {
            _ = try rawUserVersion(bundle)
        }
        report.rows.append(BenchmarkRow(
            workload: "detect a 1.x bundle's format and schema version", ours: detect,
            baselineName: "raw SQLite: open read-only, PRAGMA user_version", baseline: pragma,
            maximumRatio: nil))
        let registry = StorageEngineRegistry(engines: [SQLiteEngine(), RocksDBEngine()])
        for engine in [SQLiteEngine.engineName, RocksDBEngine.engineName] {
            var upgraded = 0
            let upgrade = try Stopwatch.median(iterations: options.iterations, setup: {
                folder.appendingPathComponent("upgrade-\(UUID().uuidString)", isDirectory: true)
            }) { output in
                let summary = try LegacyUpgrader(registry: registry, engineName: engine)
                    .convert(legacyBundleAt: bundle.path, to: DatabaseBundle(name: "bench", directory: output.path))
                upgraded = summary.documentCount
            }
            var copied = 0
            let rawCopy = try Stopwatch.median(iterations: options.iterations, setup: {
                folder.appendingPathComponent("raw-\(UUID().uuidString).sqlite3")
            }) { output in
                copied = try rawMigrate(bundle, to: output)
            }
            guard upgraded == count, copied == count else {
                throw BenchmarkFailure(description: "upgraded \(upgraded) and copied \(copied) documents, expected \(count)")
            }
            report.rows.append(BenchmarkRow(
                workload: "upgrade \(count) 1.x docs into a new \(engine) database (build, verify, install)",
                ours: upgrade,
                baselineName: "raw SQLite: same reads, JSON bodies and histories into one table, one transaction",
                baseline: rawCopy, maximumRatio: nil))
        }
        report.notes.append("Issue 7 sets no speed target; the rows show the cost of the private copy, "
            + "integrity check and JSON validation over bare queries, and of a migration that reads the "
            + "1.x database twice (build, then verify against it), converts JSON to Fleece, builds rev "
            + "trees and reopens the result, over a bare copy of the rows.")
        return report
    }

    private static func check(_ result: Int32, _ connection: OpaquePointer?, _ what: String) throws {
        guard result == SQLITE_OK || result == SQLITE_ROW || result == SQLITE_DONE else {
            let message = connection.map { String(cString: sqlite3_errmsg($0)) } ?? "error \(result)"
            throw BenchmarkFailure(description: "\(what): \(message)")
        }
    }

    private static func prepare(_ connection: OpaquePointer, _ sql: String) throws -> OpaquePointer {
        var statement: OpaquePointer?
        try check(sqlite3_prepare_v2(connection, sql, -1, &statement, nil), connection, sql)
        guard let statement else { throw BenchmarkFailure(description: "no statement for \(sql)") }
        return statement
    }

    /// Opens a 1.x bundle's database read-only and immutable (nothing is written beside it).
    private static func openImmutable(_ bundle: URL) throws -> OpaquePointer {
        var connection: OpaquePointer?
        let uri = "file:" + bundle.appendingPathComponent("db.sqlite3").path + "?immutable=1"
        try check(sqlite3_open_v2(uri, &connection, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nil), connection, "open")
        guard let connection else { throw BenchmarkFailure(description: "open failed") }
        return connection
    }

    /// The reader's queries straight on the file: for each document, its ID, the winning
    /// revision's body and the history (current first).
    private static func forEachWinner(
        _ bundle: URL, orderedByID: Bool,
        _ body: (_ docID: UnsafePointer<UInt8>?, _ json: UnsafeRawBufferPointer, _ history: [String]) throws -> Void
    ) throws {
        let connection = try openImmutable(bundle)
        defer { sqlite3_close_v2(connection) }
        _ = LegacyRevisionID.registerCollation(on: connection)
        let docs = try prepare(connection, "SELECT doc_id, docid FROM docs" + (orderedByID ? " ORDER BY doc_id" : ""))
        let winner = try prepare(connection, """
            SELECT sequence, revid, parent, deleted, json, no_attachments FROM revs
            WHERE doc_id = ? AND current != 0 ORDER BY deleted, revid DESC LIMIT 1
            """)
        let parent = try prepare(connection, "SELECT revid, parent, doc_id FROM revs WHERE sequence = ?")
        defer { [docs, winner, parent].forEach { sqlite3_finalize($0) } }
        while sqlite3_step(docs) == SQLITE_ROW {
            sqlite3_reset(winner)
            sqlite3_bind_int64(winner, 1, sqlite3_column_int64(docs, 0))
            guard sqlite3_step(winner) == SQLITE_ROW else { continue }
            var next = sqlite3_column_type(winner, 2) == SQLITE_NULL ? nil : Optional(sqlite3_column_int64(winner, 2))
            var history = [String(cString: sqlite3_column_text(winner, 1))]
            while let sequence = next {
                sqlite3_reset(parent)
                sqlite3_bind_int64(parent, 1, sequence)
                guard sqlite3_step(parent) == SQLITE_ROW else { break }
                history.append(String(cString: sqlite3_column_text(parent, 0)))
                next = sqlite3_column_type(parent, 1) == SQLITE_NULL ? nil : sqlite3_column_int64(parent, 1)
            }
            let json = UnsafeRawBufferPointer(start: sqlite3_column_blob(winner, 4),
                                              count: Int(sqlite3_column_bytes(winner, 4)))
            try body(sqlite3_column_text(docs, 1), json, history)
        }
    }

    /// The baseline: the reader's queries straight on the file, copying each winning body.
    private static func rawRead(_ bundle: URL) throws -> Int {
        var count = 0
        try forEachWinner(bundle, orderedByID: true) { _, json, history in
            let body = Array(json)
            if !body.isEmpty && !history.isEmpty { count += 1 }
        }
        return count
    }

    /// The migration baseline: `rawRead`'s reads, writing each winning body and its history
    /// into a new SQLite file shaped like 2.x's `kv_default`, in one transaction.
    private static func rawMigrate(_ bundle: URL, to output: URL) throws -> Int {
        var target: OpaquePointer?
        try check(sqlite3_open_v2(output.path, &target, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil), target, "create")
        guard let target else { throw BenchmarkFailure(description: "create failed") }
        defer { sqlite3_close_v2(target) }
        try check(sqlite3_exec(target, """
            PRAGMA journal_mode = WAL;
            CREATE TABLE kv_default (key TEXT PRIMARY KEY, sequence INTEGER, flags INTEGER, version BLOB, body BLOB);
            BEGIN;
            """, nil, nil, nil), target, "schema")
        let insert = try prepare(target, "INSERT INTO kv_default VALUES (?, ?, 0, ?, ?)")
        defer { sqlite3_finalize(insert) }
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        var count = 0
        try forEachWinner(bundle, orderedByID: false) { docID, json, history in
            count += 1
            sqlite3_reset(insert)
            sqlite3_bind_text(insert, 1, docID, -1, transient)
            sqlite3_bind_int64(insert, 2, Int64(count))
            sqlite3_bind_text(insert, 3, history.joined(separator: ","), -1, transient)
            sqlite3_bind_blob(insert, 4, json.baseAddress, Int32(json.count), transient)
            try check(sqlite3_step(insert), target, "insert")
        }
        try check(sqlite3_exec(target, "COMMIT", nil, nil, nil), target, "commit")
        return count
    }

    private static func rawUserVersion(_ bundle: URL) throws -> Int {
        let connection = try openImmutable(bundle)
        defer { sqlite3_close_v2(connection) }
        let statement = try prepare(connection, "PRAGMA user_version")
        defer { sqlite3_finalize(statement) }
        try check(sqlite3_step(statement), connection, "PRAGMA user_version")
        return Int(sqlite3_column_int64(statement, 0))
    }

    /// A 1.3-schema database: each document has two revisions and an attachment stub.
    private static func makeLegacyDatabase(in folder: URL, documents: Int) throws -> URL {
        let bundle = folder.appendingPathComponent("bench.cblite2", isDirectory: true)
        try FileManager.default.createDirectory(at: bundle.appendingPathComponent("attachments"),
                                                withIntermediateDirectories: true)
        var connection: OpaquePointer?
        let path = bundle.appendingPathComponent("db.sqlite3").path
        try check(sqlite3_open_v2(path, &connection, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil), connection, "create")
        guard let connection else { throw BenchmarkFailure(description: "create failed") }
        defer { sqlite3_close_v2(connection) }
        _ = LegacyRevisionID.registerCollation(on: connection)
        try check(sqlite3_exec(connection, """
            PRAGMA journal_mode = WAL;
            CREATE TABLE docs (doc_id INTEGER PRIMARY KEY, docid TEXT UNIQUE NOT NULL, expiry_timestamp INTEGER);
            CREATE TABLE revs (sequence INTEGER PRIMARY KEY AUTOINCREMENT,
                doc_id INTEGER NOT NULL REFERENCES docs(doc_id) ON DELETE CASCADE,
                revid TEXT NOT NULL COLLATE REVID, parent INTEGER REFERENCES revs(sequence) ON DELETE SET NULL,
                current BOOLEAN, deleted BOOLEAN DEFAULT 0, json BLOB, no_attachments BOOLEAN, doc_type TEXT,
                UNIQUE (doc_id, revid));
            CREATE INDEX revs_parent ON revs(parent);
            CREATE INDEX revs_current ON revs(doc_id, current desc, deleted, revid desc);
            PRAGMA user_version = 102;
            BEGIN;
            """, nil, nil, nil), connection, "schema")
        let insertDoc = try prepare(connection, "INSERT INTO docs (docid) VALUES (?)")
        let insertRev = try prepare(connection, """
            INSERT INTO revs (doc_id, revid, parent, current, json, no_attachments) VALUES (?, ?, ?, ?, ?, ?)
            """)
        defer { sqlite3_finalize(insertDoc); sqlite3_finalize(insertRev) }
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        for index in 0..<documents {
            sqlite3_reset(insertDoc)
            sqlite3_bind_text(insertDoc, 1, String(format: "doc-%06d", index), -1, transient)
            try check(sqlite3_step(insertDoc), connection, "insert doc")
            let key = sqlite3_last_insert_rowid(connection)
            var parent: Int64?
            for generation in 1...2 {
                let body = #"{"_attachments":{"a":{"content_type":"text/plain","digest":"sha1-P1i5kI/sosq745/9BDR7kEghKps=","length":7,"revpos":2,"stub":true}},"index":\#(index),"name":"document \#(index)","tags":["x","y"],"generation":\#(generation)}"#
                sqlite3_reset(insertRev)
                sqlite3_bind_int64(insertRev, 1, key)
                sqlite3_bind_text(insertRev, 2, "\(generation)-" + String(format: "%032x", index * 2 + generation), -1, transient)
                if let parent { sqlite3_bind_int64(insertRev, 3, parent) } else { sqlite3_bind_null(insertRev, 3) }
                sqlite3_bind_int(insertRev, 4, generation == 2 ? 1 : 0)
                sqlite3_bind_blob(insertRev, 5, body, Int32(body.utf8.count), transient)
                sqlite3_bind_int(insertRev, 6, 0)
                try check(sqlite3_step(insertRev), connection, "insert rev")
                parent = sqlite3_last_insert_rowid(connection)
            }
        }
        try check(sqlite3_exec(connection, "COMMIT; PRAGMA wal_checkpoint(TRUNCATE);", nil, nil, nil), connection, "commit")
        return bundle
    }
}
