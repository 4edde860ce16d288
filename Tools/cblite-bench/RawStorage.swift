import CRocksDB
import CSQLite
import Foundation
import LiteStorage

/// A baseline: the raw C API of an engine doing the benchmark's work with no layer on top.
protocol RawStorage {
    /// Creates the file at `path` and inserts the data set in transactions of `batchSize`.
    static func insert(path: String, data: StorageBenchmarks.DataSet, batchSize: Int) throws
    /// Opens the file made by `insert` for reading.
    static func openReader(path: String) throws -> any RawReader
}

/// Reads of a baseline; each returns the body bytes read, so nothing is optimised away.
protocol RawReader {
    func read(_ key: String) throws -> Int
    func scanBySequence() throws -> Int
    func close()
}

private func failure(_ text: String) -> StorageError { StorageError(.engineFailure, "baseline: \(text)") }

// MARK: SQLite

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

// MARK: RocksDB

/// Raw RocksDB with the engine's options and key layout: a write batch per transaction holding
/// each record under its key and a sequence-index entry, synced on write.
enum RawRocksDB: RawStorage {
    static func recordKey(_ key: String) -> [UInt8] { [0x10, 0, 0, 0, 1] + Array(key.utf8) }

    static func sequenceKey(_ sequence: UInt64) -> [UInt8] {
        var bytes: [UInt8] = [0x11, 0, 0, 0, 1]
        withUnsafeBytes(of: sequence.bigEndian) { bytes.append(contentsOf: $0) }
        return bytes
    }

    static func open(_ path: String, create: Bool) throws -> (OpaquePointer, OpaquePointer, OpaquePointer) {
        guard let options = rocksdb_options_create(), let table = rocksdb_block_based_options_create() else {
            throw failure("options")
        }
        rocksdb_options_set_create_if_missing(options, create ? 1 : 0)
        rocksdb_block_based_options_set_filter_policy(table, rocksdb_filterpolicy_create_bloom_full(10))
        rocksdb_options_set_block_based_table_factory(options, table)
        rocksdb_options_set_compression(options, Int32(rocksdb_lz4_compression))
        rocksdb_options_set_memtable_prefix_bloom_size_ratio(options, 0.1)
        rocksdb_options_set_memtable_whole_key_filtering(options, 1)
        var error: UnsafeMutablePointer<CChar>?
        let db = rocksdb_open(options, path, &error)
        if let error {
            defer { rocksdb_free(error) }
            throw failure(String(cString: error))
        }
        guard let db else { throw failure("open \(path)") }
        return (db, options, table)
    }

    static func put(_ batch: OpaquePointer, _ key: [UInt8], _ value: [UInt8]) {
        key.withUnsafeBytes { key in
            value.withUnsafeBytes { value in
                rocksdb_writebatch_put(batch, key.baseAddress?.assumingMemoryBound(to: CChar.self), key.count,
                                       value.baseAddress?.assumingMemoryBound(to: CChar.self), value.count)
            }
        }
    }

    static func insert(path: String, data: StorageBenchmarks.DataSet, batchSize: Int) throws {
        let (db, options, table) = try open(path, create: true)
        defer {
            rocksdb_close(db)
            rocksdb_options_destroy(options)
            rocksdb_block_based_options_destroy(table)
        }
        let writeOptions = rocksdb_writeoptions_create()
        rocksdb_writeoptions_set_sync(writeOptions, 1)
        defer { rocksdb_writeoptions_destroy(writeOptions) }
        for start in stride(from: 0, to: data.keys.count, by: batchSize) {
            guard let batch = rocksdb_writebatch_create() else { throw failure("write batch") }
            defer { rocksdb_writebatch_destroy(batch) }
            let end = min(start + batchSize, data.keys.count)
            for index in start..<end {
                // The same value format as the engine: header, version, body.
                var value: [UInt8] = [1]
                value.reserveCapacity(26 + data.version.count + data.bodies[index].count)
                withUnsafeBytes(of: UInt64(index + 1).bigEndian) { value.append(contentsOf: $0) }
                value += [0, 0, 0, 0, 0]
                withUnsafeBytes(of: UInt32(data.version.count).bigEndian) { value.append(contentsOf: $0) }
                value += data.version
                value += data.bodies[index]
                put(batch, recordKey(data.keys[index]), value)
                put(batch, sequenceKey(UInt64(index + 1)), Array(data.keys[index].utf8))
            }
            var meta: [UInt8] = []
            withUnsafeBytes(of: UInt64(end).bigEndian) { meta.append(contentsOf: $0) }
            meta += [UInt8](repeating: 0, count: 8)
            put(batch, [0x13, 0, 0, 0, 1], meta)
            var error: UnsafeMutablePointer<CChar>?
            rocksdb_write(db, writeOptions, batch, &error)
            if let error {
                defer { rocksdb_free(error) }
                throw failure(String(cString: error))
            }
        }
    }

    static func openReader(path: String) throws -> any RawReader {
        let (db, options, table) = try open(path, create: false)
        return Reader(db: db, options: options, table: table)
    }

    final class Reader: RawReader {
        let db: OpaquePointer
        let options: OpaquePointer
        let table: OpaquePointer
        let readOptions = rocksdb_readoptions_create()

        init(db: OpaquePointer, options: OpaquePointer, table: OpaquePointer) {
            self.db = db
            self.options = options
            self.table = table
        }

        private func get(_ key: [UInt8]) throws -> [UInt8]? {
            var error: UnsafeMutablePointer<CChar>?
            let slice = key.withUnsafeBytes {
                rocksdb_get_pinned(db, readOptions, $0.baseAddress?.assumingMemoryBound(to: CChar.self), $0.count, &error)
            }
            if let error {
                defer { rocksdb_free(error) }
                throw failure(String(cString: error))
            }
            guard let slice else { return nil }
            defer { rocksdb_pinnableslice_destroy(slice) }
            var length = 0
            let value = rocksdb_pinnableslice_value(slice, &length)
            return [UInt8](UnsafeRawBufferPointer(start: value, count: length))
        }

        func read(_ key: String) throws -> Int { try get(RawRocksDB.recordKey(key))?.count ?? 0 }

        func scanBySequence() throws -> Int {
            let iterator = rocksdb_create_iterator(db, readOptions)
            defer { rocksdb_iter_destroy(iterator) }
            let start = RawRocksDB.sequenceKey(1)
            start.withUnsafeBytes { rocksdb_iter_seek(iterator, $0.baseAddress?.assumingMemoryBound(to: CChar.self), $0.count) }
            var total = 0
            while rocksdb_iter_valid(iterator) != 0 {
                var length = 0
                let key = UnsafeRawBufferPointer(start: rocksdb_iter_key(iterator, &length), count: length)
                guard key.count == 13, key[0] == 0x11 else { break }
                var valueLength = 0
                let value = UnsafeRawBufferPointer(start: rocksdb_iter_value(iterator, &valueLength), count: valueLength)
                total += try get([0x10, 0, 0, 0, 1] + value)?.count ?? 0
                rocksdb_iter_next(iterator)
            }
            return total
        }

        func close() {
            rocksdb_readoptions_destroy(readOptions)
            rocksdb_close(db)
            rocksdb_options_destroy(options)
            rocksdb_block_based_options_destroy(table)
        }
    }
}
