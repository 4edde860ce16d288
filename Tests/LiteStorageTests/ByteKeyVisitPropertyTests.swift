import LiteStorage
import PropertyBased
import Testing
import TestSupport

/// `ByteKeyStore.visit(_:descending:_:)` lends each entry's bytes (RocksDB straight from its
/// iterator, merged with the open transaction's writes). For generated stores and ranges it
/// must give the entries `scan(_:descending:)` gives, in the same order, both directions:
/// committed, and inside a write transaction that has put and deleted entries. Every engine.
@Suite(.ownThreads) struct ByteKeyVisitPropertyTests {
    private static func visited(_ store: any ByteKeyStore, _ range: ByteKeyRange, descending: Bool) throws -> [[UInt8]] {
        var seen: [[UInt8]] = []
        try store.visit(range, descending: descending) { key, value in
            seen.append(Array(key) + [0xEE] + Array(value))
            return true
        }
        return seen
    }

    private static func scanned(_ store: any ByteKeyStore, _ range: ByteKeyRange, descending: Bool) throws -> [[UInt8]] {
        let cursor = try store.scan(range, descending: descending)
        defer { cursor.close() }
        var seen: [[UInt8]] = []
        while let entry = try cursor.next() { seen.append(entry.key + [0xEE] + entry.value) }
        return seen
    }

    @Test(arguments: StorageEngineKind.allCases)
    func visitLendsWhatScanGives(engine: StorageEngineKind) async throws {
        // Each step: (first key byte, second key byte, what): what 0 deletes the key, else puts a
        // value of that many bytes.
        let steps = zip(Gen.int(in: 0...40), Gen.int(in: 0...3), Gen.int(in: 0...6)).array(of: 0...60)
        let bounds = zip(Gen.int(in: 0...42), Gen.int(in: 0...42))
        await propertyCheck(count: 40, input: zip(steps, steps, bounds)) { committed, pending, bound in
            do {
                try withTemporaryDataFile(engine) { file in
                    let store = try file.byteKeyStore("visit-test")
                    // Another store's entries around it: a visit must not leak into them.
                    let neighbour = try file.byteKeyStore("visit-test-2")
                    func apply(_ steps: [(Int, Int, Int)], in txn: borrowing WriteTransaction) throws {
                        for (first, second, what) in steps {
                            let key = [UInt8(first), UInt8(second)]
                            if what == 0 {
                                try store.delete(key, in: txn)
                            } else {
                                try store.put(key, Array(repeating: UInt8(what), count: what), in: txn)
                                try neighbour.put(key, [9], in: txn)
                            }
                        }
                    }
                    let low = UInt8(min(bound.0, bound.1)), high = UInt8(max(bound.0, bound.1))
                    let ranges = [ByteKeyRange.all, ByteKeyRange(lower: [low], upper: [high]), ByteKeyRange(prefix: [low])]
                    func check(_ stage: String) throws {
                        for range in ranges {
                            for descending in [false, true] {
                                #expect(try Self.visited(store, range, descending: descending)
                                        == Self.scanned(store, range, descending: descending), "\(engine) \(stage) \(range) \(descending)")
                            }
                        }
                    }
                    try file.write { txn in try apply(committed, in: txn) }
                    try check("committed")
                    try file.write { txn in
                        try apply(pending, in: txn)
                        try check("in a transaction")
                    }
                }
            } catch {
                Issue.record("\(engine): \(error)")
            }
        }
    }
}
