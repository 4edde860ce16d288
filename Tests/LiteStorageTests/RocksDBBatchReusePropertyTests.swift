import CRocksDB
import PropertyBased
import Testing
import TestSupport
@testable import RocksDBStorage

/// A commit fills a write batch that earlier commits used (Storage-23). For generated pairs of
/// transactions (puts and deletions, empty and long keys and values, lengths that need one to
/// three varint bytes), the reused batch must hold exactly the bytes of a new batch filled with
/// the second transaction alone, and those must be RocksDB's documented serialized form of the
/// final writes in key order: nothing of the first transaction may survive.
@Suite(.ownThreads) struct RocksDBBatchReusePropertyTests {
    private static func data(_ batch: OpaquePointer) -> [UInt8] {
        var size = 0
        guard let bytes = rocksdb_writebatch_data(batch, &size) else { return [] }
        return Array(UnsafeRawBufferPointer(start: bytes, count: size))
    }

    /// A batch of the default column family: an 8-byte sequence (zero until written), a 4-byte
    /// little-endian count, then per write a tag (1 a value, 0 a deletion), the varint-prefixed
    /// key and, for a value, the varint-prefixed value.
    private static func expectedBytes(_ writes: [(key: [UInt8], value: [UInt8]?)]) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: 8)
        for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: writes.count >> shift)) }
        func appendVarint(_ value: Int) {
            var rest = value
            while rest >= 0x80 { bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80); rest >>= 7 }
            bytes.append(UInt8(rest))
        }
        for (key, value) in writes.sorted(by: { $0.key.lexicographicallyPrecedes($1.key) }) {
            bytes.append(value == nil ? 0 : 1)
            appendVarint(key.count)
            bytes += key
            if let value {
                appendVarint(value.count)
                bytes += value
            }
        }
        return bytes
    }

    private typealias Write = (keyLength: Int, rawLength: Int, kind: Int, seed: Int)

    /// The pending writes of `writes`, and the final write of each key.
    private static func transaction(_ writes: [Write]) -> (RocksDBPendingWrites, [(key: [UInt8], value: [UInt8]?)]) {
        let pending = RocksDBPendingWrites(path: "generated")
        var final: [[UInt8]: [UInt8]?] = [:]
        for (keyLength, rawLength, kind, seed) in writes {
            let key = (0..<keyLength).map { UInt8(truncatingIfNeeded: seed &+ $0 &* 31) }
            if kind < 2 {
                pending.delete(key)
                final[key] = .some(nil)
            } else {
                let length = kind < 7 ? rawLength % 100 : kind < 9 ? 128 + rawLength % 300 : rawLength
                let value = (0..<length).map { UInt8(truncatingIfNeeded: seed ^ $0) }
                pending.put(key, value)
                final[key] = .some(value)
            }
        }
        return (pending, final.map { (key: $0.key, value: $0.value) })
    }

    @Test func aReusedBatchHoldsOnlyTheNewTransaction() async throws {
        try RocksDBEngine.loadLibrary()
        // Kinds 0–1 delete; 2–6 short values, 7–8 past 127 bytes, 9 past 16,383 (two- and
        // three-byte varints).
        let writes = zip(Gen.int(in: 0...40), Gen.int(in: 0...20_000), Gen.int(in: 0...9), Gen.int(in: 0...255))
            .array(of: 0...60)
        await propertyCheck(count: 200, input: writes, writes) { first, second in
            let (earlier, _) = Self.transaction(first)
            let (later, expected) = Self.transaction(second)
            guard let reused = rocksdb_writebatch_create(), let fresh = rocksdb_writebatch_create() else {
                Issue.record("a batch could not be made")
                return
            }
            defer {
                rocksdb_writebatch_destroy(reused)
                rocksdb_writebatch_destroy(fresh)
            }
            do {
                try earlier.fill(reused)
                try later.fill(reused)
                try later.fill(fresh)
            } catch {
                Issue.record("filling a batch failed: \(error)")
                return
            }
            #expect(Self.data(reused) == Self.data(fresh))
            #expect(Self.data(reused) == Self.expectedBytes(expected))
            #expect(rocksdb_writebatch_count(reused) == Int32(later.count))
        }
    }

    @Test func thePoolHandsBackAnEmptiedBatch() throws {
        try RocksDBEngine.loadLibrary()
        let first = try RocksDBBatchPool.take()
        let pending = RocksDBPendingWrites(path: "generated")
        pending.put([1, 2, 3], [4, 5, 6])
        try pending.fill(first)
        RocksDBBatchPool.giveBack(first)
        // The kept batch, or a new one if a test running in parallel holds it: empty either way.
        let second = try RocksDBBatchPool.take()
        defer { RocksDBBatchPool.giveBack(second) }
        #expect(rocksdb_writebatch_count(second) == 0)
        #expect(Self.data(second) == Self.expectedBytes([]))
    }
}
