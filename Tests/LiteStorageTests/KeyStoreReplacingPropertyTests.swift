import LiteStorage
import PropertyBased
import Testing
import TestSupport

/// `set(_:replacing:)` lets a store skip reading a record the same transaction read already
/// (RocksDB does). For generated runs of transactions (saves, expirations, purges, several to a
/// transaction, on a few keys), a store written through it must end up exactly like one written
/// through `set(_:ifSequence:)`: the same records, sequences, expirations, sequence order and
/// last sequence. Run on every engine.
@Suite(.ownThreads) struct KeyStoreReplacingPropertyTests {
    private typealias Step = (key: Int, kind: Int, seed: Int)

    /// Applies `transactions`; a save reads the record in its transaction first, then stores
    /// through `replacing` (or, for the reference, through `ifSequence`).
    private static func apply(_ transactions: [[Step]], to file: any DataFile, replacing: Bool) throws {
        let store = try file.keyStore("default")
        for steps in transactions {
            try file.write { txn in
                for (key, kind, seed) in steps {
                    let name = "doc-\(key)"
                    switch kind {
                    case 0: try store.purge(name, in: txn)
                    case 1: try store.setExpiration(name, to: seed % 3 == 0 ? nil : Int64(1_000 + seed), in: txn)
                    default:
                        let read = try store.get(name, content: .metaOnly)
                        let record = Record(key: name, version: [UInt8(truncatingIfNeeded: seed)],
                                            body: Array(repeating: UInt8(truncatingIfNeeded: kind), count: seed % 50),
                                            flags: seed % 4 == 0 ? .deleted : [])
                        if replacing {
                            try store.set(record, replacing: read?.state, in: txn)
                        } else {
                            try store.set(record, ifSequence: read?.sequence ?? 0, in: txn)
                        }
                    }
                }
            }
        }
    }

    private static func contents(_ file: any DataFile) throws -> (records: [Record], bySequence: [String], last: UInt64) {
        let store = try file.keyStore("default")
        var records: [Record] = []
        let all = try store.enumerate(options: RecordEnumerationOptions(includeDeleted: true))
        while let record = try all.next() { records.append(record) }
        var bySequence: [String] = []
        let changes = try store.enumerate(since: 0, options: RecordEnumerationOptions(includeDeleted: true))
        while let record = try changes.next() { bySequence.append("\(record.sequence) \(record.key)") }
        return (records, bySequence, try store.lastSequence())
    }

    @Test(arguments: StorageEngineKind.allCases)
    func replacingWhatTheTransactionReadWritesWhatACheckedWriteWrites(engine: StorageEngineKind) async throws {
        // Kinds: 0 purge, 1 expiration, 2–9 save (so most steps save).
        let transactions = zip(Gen.int(in: 0...4), Gen.int(in: 0...9), Gen.int(in: 0...255))
            .array(of: 1...6).array(of: 1...8)
        await propertyCheck(count: 60, input: transactions) { transactions in
            do {
                try withTemporaryDataFile(engine) { replaced in
                    try withTemporaryDataFile(engine) { checked in
                        try Self.apply(transactions, to: replaced, replacing: true)
                        try Self.apply(transactions, to: checked, replacing: false)
                        let (ours, reference) = (try Self.contents(replaced), try Self.contents(checked))
                        #expect(ours.records == reference.records)
                        #expect(ours.bySequence == reference.bySequence)
                        #expect(ours.last == reference.last)
                        let expirations = try (0...4).map { try replaced.keyStore("default").expiration(of: "doc-\($0)") }
                        let referenceExpirations = try (0...4).map { try checked.keyStore("default").expiration(of: "doc-\($0)") }
                        #expect(expirations == referenceExpirations)
                    }
                }
            } catch {
                Issue.record("\(engine): \(error)")
            }
        }
    }

    #if DEBUG
    /// A caller that breaks the promise (its read is stale) is caught where the tests run.
    @Test(arguments: StorageEngineKind.allCases)
    func aStaleReadIsRefusedInDebugBuilds(engine: StorageEngineKind) throws {
        try withTemporaryDataFile(engine) { file in
            let store = try file.keyStore("default")
            try StorageConformance.insert(["a"], into: store, of: file)
            let stale = try #require(try store.get("a")).state
            try file.write { txn in _ = try store.set(Record(key: "a", body: [2]), ifSequence: stale.sequence, in: txn) }
            #expect(throws: StorageError.conflict) {
                try file.write { txn in _ = try store.set(Record(key: "a", body: [3]), replacing: stale, in: txn) }
            }
            #expect(try store.get("a")?.body == [2])
        }
    }
    #endif
}
