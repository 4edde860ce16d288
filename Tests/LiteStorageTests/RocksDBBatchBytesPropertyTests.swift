import CRocksDB
import PropertyBased
import Testing
@testable import RocksDBStorage

/// A commit's write batch is written out in RocksDB's serialized form and handed over in one
/// call (Storage-21); for generated transactions (puts and deletions, empty and long keys and
/// values, lengths that need one to three varint bytes), its bytes must be exactly those of the
/// batch RocksDB builds from one `put` or `delete` per write.
@Suite struct RocksDBBatchBytesPropertyTests {
    private static func data(_ batch: OpaquePointer) -> [UInt8] {
        var size = 0
        guard let bytes = rocksdb_writebatch_data(batch, &size) else { return [] }
        return Array(UnsafeRawBufferPointer(start: bytes, count: size))
    }

    @Test func serializedBatchEqualsTheOneBuiltByPuts() async throws {
        try RocksDBEngine.loadLibrary()
        // Kinds 0–1 delete; 2–6 short values, 7–8 past 127 bytes, 9 past 16,383 (two- and
        // three-byte varints).
        let writes = zip(Gen.int(in: 0...40), Gen.int(in: 0...20_000), Gen.int(in: 0...9), Gen.int(in: 0...255))
            .array(of: 0...60)
        await propertyCheck(count: 200, input: writes) { writes in
            let pending = RocksDBPendingWrites(path: "generated")
            for (keyLength, rawLength, kind, seed) in writes {
                let key = (0..<keyLength).map { UInt8(truncatingIfNeeded: seed &+ $0 &* 31) }
                if kind < 2 {
                    pending.delete(key)
                } else {
                    let length = kind < 7 ? rawLength % 100 : kind < 9 ? 128 + rawLength % 300 : rawLength
                    pending.put(key, (0..<length).map { UInt8(truncatingIfNeeded: seed ^ $0) })
                }
            }
            guard let batch = try? pending.makeBatch(), let reference = try? pending.referenceBatch() else {
                Issue.record("a batch could not be made")
                return
            }
            defer {
                rocksdb_writebatch_destroy(batch)
                rocksdb_writebatch_destroy(reference)
            }
            #expect(Self.data(batch) == Self.data(reference))
            #expect(rocksdb_writebatch_count(batch) == Int32(pending.count))
        }
    }
}
