import CSQLite
import Foundation
import LiteStorage

/// Raw SQLite on the Couchbase Lite 2.x schema, with the pragmas the engine uses.
enum RawSQLite: RawStorage {
    static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    static func exec(_ db: OpaquePointer, _ sql: String) throws {
        guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else {
            throw failure(String(cString: sqlite3_errmsg(db)))
        }
    }

    static func prepare(_ db: OpaquePointer, _ sql: String) throws -> OpaquePointer {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw failure(String(cString: sqlite3_errmsg(db)))
        }
        return statement
    }

    static func insert(path: String, data: StorageBenchmarks.DataSet, batchSize: Int) throws {
        var handle: OpaquePointer?
        guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil)
                == SQLITE_OK, let db = handle else { throw failure("open \(path)") }
        defer { sqlite3_close_v2(db) }
        try exec(db, """
            PRAGMA synchronous=normal; PRAGMA journal_size_limit=2097152; PRAGMA auto_vacuum=incremental;
            PRAGMA journal_mode=WAL;
            CREATE TABLE kvmeta (name TEXT PRIMARY KEY, lastSeq INTEGER DEFAULT 0, purgeCnt INTEGER DEFAULT 0) WITHOUT ROWID;
            PRAGMA user_version=302;
            CREATE TABLE kv_default (key TEXT PRIMARY KEY, sequence INTEGER, flags INTEGER DEFAULT 0, version BLOB, body BLOB);
            CREATE UNIQUE INDEX kv_default_seqs ON kv_default (sequence);
            """)
        let insert = try prepare(db, "INSERT INTO kv_default (key, sequence, flags, version, body) VALUES (?, ?, 0, ?, ?)")
        let meta = try prepare(db, "INSERT OR REPLACE INTO kvmeta (name, lastSeq) VALUES ('default', ?)")
        defer {
            sqlite3_finalize(insert)
            sqlite3_finalize(meta)
        }
        for start in stride(from: 0, to: data.keys.count, by: batchSize) {
            try exec(db, "BEGIN IMMEDIATE")
            let end = min(start + batchSize, data.keys.count)
            for index in start..<end {
                sqlite3_reset(insert)
                sqlite3_bind_text(insert, 1, data.keys[index], -1, transient)
                sqlite3_bind_int64(insert, 2, Int64(index + 1))
                data.version.withUnsafeBytes { _ = sqlite3_bind_blob(insert, 3, $0.baseAddress, Int32($0.count), transient) }
                data.bodies[index].withUnsafeBytes {
                    _ = sqlite3_bind_blob(insert, 4, $0.baseAddress, Int32($0.count), transient)
                }
                guard sqlite3_step(insert) == SQLITE_DONE else { throw failure(String(cString: sqlite3_errmsg(db))) }
            }
            sqlite3_reset(meta)
            sqlite3_bind_int64(meta, 1, Int64(end))
            guard sqlite3_step(meta) == SQLITE_DONE else { throw failure(String(cString: sqlite3_errmsg(db))) }
            try exec(db, "COMMIT")
        }
    }

    static func openReader(path: String) throws -> any RawReader {
        var handle: OpaquePointer?
        guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK,
              let db = handle else { throw failure("open \(path)") }
        return Reader(db: db,
                      get: try prepare(db, "SELECT sequence, flags, key, version, body FROM kv_default WHERE key=?"),
                      scan: try prepare(db, "SELECT sequence, flags, key, version, body FROM kv_default "
                                        + "WHERE sequence > ? AND (flags & 1) = 0 ORDER BY sequence"))
    }

    /// Copies the columns out as the engine does, so both do the same work per row.
    final class Reader: RawReader {
        let db: OpaquePointer
        let get: OpaquePointer
        let scan: OpaquePointer

        init(db: OpaquePointer, get: OpaquePointer, scan: OpaquePointer) {
            self.db = db
            self.get = get
            self.scan = scan
        }

        private func copyRow(_ statement: OpaquePointer) -> Int {
            let key = String(cString: sqlite3_column_text(statement, 2))
            let version = [UInt8](UnsafeRawBufferPointer(start: sqlite3_column_blob(statement, 3),
                                                         count: Int(sqlite3_column_bytes(statement, 3))))
            let body = [UInt8](UnsafeRawBufferPointer(start: sqlite3_column_blob(statement, 4),
                                                      count: Int(sqlite3_column_bytes(statement, 4))))
            let sequence = sqlite3_column_int64(statement, 0)
            let flags = sqlite3_column_int64(statement, 1)
            return body.count &+ version.count &+ key.utf8.count &+ Int(sequence & 1) &+ Int(flags & 1)
        }

        func read(_ key: String) throws -> Int {
            sqlite3_reset(get)
            sqlite3_bind_text(get, 1, key, -1, RawSQLite.transient)
            return sqlite3_step(get) == SQLITE_ROW ? copyRow(get) : 0
        }

        func scanBySequence() throws -> Int {
            sqlite3_reset(scan)
            sqlite3_bind_int64(scan, 1, 0)
            var total = 0
            while sqlite3_step(scan) == SQLITE_ROW { total += copyRow(scan) }
            return total
        }

        func close() {
            sqlite3_finalize(get)
            sqlite3_finalize(scan)
            sqlite3_close_v2(db)
        }
    }
}
