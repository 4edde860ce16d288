import LiteStorage
import PropertyBased
import Testing
import TestSupport

/// `visitRecordsInAnyOrder(keyedBy:in:_:)` may read an index's records in any order (RocksDB
/// sorts the IDs and walks the records with one iterator, stepping or seeking). For generated
/// stores (records, some deleted; index entries naming records, missing ones and the same one
/// twice, sparse and dense), it must visit the same records as the index-order join, as a
/// multiset: committed, and inside a write transaction that has changed both stores. Every engine.
@Suite(.ownThreads) struct IndexJoinAnyOrderPropertyTests {
    private static func visited(_ records: any KeyStore, _ index: any ByteKeyStore, _ range: ByteKeyRange,
                                anyOrder: Bool) throws -> [String] {
        var seen: [String] = []
        let visit = { (view: RecordView) -> Bool in
            seen.append("\(view.keyString) \(view.sequence) \(view.flags.rawValue) \(view.body.count)")
            return true
        }
        if anyOrder {
            try records.visitRecordsInAnyOrder(keyedBy: index, in: range, visit)
        } else {
            try records.visitRecords(keyedBy: index, in: range, descending: false, visit)
        }
        return seen.sorted()
    }

    @Test(arguments: StorageEngineKind.allCases)
    func anyOrderVisitsTheIndexOrdersRecords(engine: StorageEngineKind) async throws {
        // Each step: (record number, entry key, what): what 0 deletes the record, 1–2 add an
        // entry naming it, 3 adds an entry naming a missing record, else saves the record.
        let steps = zip(Gen.int(in: 0...199), Gen.int(in: 0...255), Gen.int(in: 0...9)).array(of: 1...120)
        await propertyCheck(count: 40, input: zip(steps, steps)) { committed, pending in
            do {
                try withTemporaryDataFile(engine) { file in
                    let records = try file.keyStore("default")
                    let index = try file.indexStore("value:test", over: "default")
                    func apply(_ steps: [(Int, Int, Int)], in txn: borrowing WriteTransaction) throws {
                        for (number, entry, what) in steps {
                            let id = "doc-" + String(number)
                            switch what {
                            case 0:
                                try records.set(Record(key: id, version: [1], body: [], flags: .deleted), ifSequence: nil, in: txn)
                            case 1, 2:
                                try index.put([UInt8(entry), UInt8(number)], Array(id.utf8), in: txn)
                            case 3:
                                try index.put([UInt8(entry), 0xFF], Array("gone-\(number)".utf8), in: txn)
                            default:
                                try records.set(Record(key: id, version: [2], body: Array(repeating: 7, count: number % 9)),
                                                ifSequence: nil, in: txn)
                            }
                        }
                    }
                    try file.write { txn in try apply(committed, in: txn) }
                    let ranges = [ByteKeyRange.all, ByteKeyRange(lower: [40], upper: [200])]
                    for range in ranges {
                        #expect(try Self.visited(records, index, range, anyOrder: true)
                                == Self.visited(records, index, range, anyOrder: false))
                    }
                    try file.write { txn in
                        try apply(pending, in: txn)
                        for range in ranges {
                            #expect(try Self.visited(records, index, range, anyOrder: true)
                                    == Self.visited(records, index, range, anyOrder: false))
                        }
                    }
                }
            } catch {
                Issue.record("\(engine): \(error)")
            }
        }
    }
}
