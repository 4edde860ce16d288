import CRocksDB
import Foundation
import LiteStorage

/// Raw RocksDB with the engine's options and key layout: a write batch per transaction holding
/// each record under its key and a sequence-index entry, WAL written (not fsynced) per batch as
/// the engine does.
enum RawRocksDB: RawStorage {
    static func recordKey(_ key: String) -> [UInt8] { [0x10, 0, 0, 0, 1] + Array(key.utf8) }

    static func sequenceKey(_ sequence: UInt64) -> [UInt8] {
        var bytes: [UInt8] = [0x11, 0, 0, 0, 1]
        withUnsafeBytes(of: sequence.bigEndian) { bytes.append(contentsOf: $0) }
        return bytes
    }

    static func open(_ path: String, create: Bool) throws -> (OpaquePointer, OpaquePointer, OpaquePointer) {
        var loadError: UnsafeMutablePointer<CChar>?
        guard cbl_rocksdb_load(&loadError) != 0 else {
            defer { free(loadError) }
            throw failure(loadError.map { String(cString: $0) } ?? "cannot load librocksdb")
        }
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
        rocksdb_writeoptions_set_sync(writeOptions, 0)
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
