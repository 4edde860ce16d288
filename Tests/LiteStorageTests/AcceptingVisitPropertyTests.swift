import LiteStorage
import PropertyBased
import Testing
import TestSupport

/// `KeyStore.visitRecords(options:accepting:_:)` (SQLite tests each body inside its own scan).
/// For generated stores with deleted records, it must visit exactly the records a plain visit
/// gives whose bodies the test takes, each just after the test took that very body (the query
/// engine keeps the test's verdict for the record it is handed next); and a scan of another
/// store inside the visitor keeps its own test. Every engine, with and without a read snapshot.
@Suite(.ownThreads) struct AcceptingVisitPropertyTests {
    @Test(arguments: StorageEngineKind.allCases)
    func acceptingVisitsWhatTheTestTakes(engine: StorageEngineKind) async throws {
        // Each record: (key number, body length, deleted), and the body bytes the test takes
        // (a record whose body starts with one of them).
        let records = zip(Gen.int(in: 0...60), Gen.int(in: 0...5), Gen.bool).array(of: 0...40)
        let taken = Gen.int(in: 0...5).array(of: 0...3)
        await propertyCheck(count: 40, input: zip(records, taken)) { records, taken in
            do {
                try withTemporaryDataFile(engine) { file in
                    let store = try file.keyStore("accepting")
                    let other = try file.keyStore("accepting-other")
                    try file.write { txn in
                        for (number, length, deleted) in records {
                            let body = [UInt8](repeating: UInt8(length), count: length)
                            _ = try store.set(Record(key: "k\(number)", body: body, flags: deleted ? .deleted : []),
                                              ifSequence: nil, in: txn)
                            _ = try other.set(Record(key: "o\(number)", body: body), ifSequence: nil, in: txn)
                        }
                    }
                    let takes = Set(taken.map(UInt8.init))
                    let others = Set(records.map(\.0)).count
                    func accepts(_ body: UnsafeRawBufferPointer) -> Bool { body.first.map(takes.contains) ?? takes.contains(0) }
                    // In a read snapshot, where SQLite runs the inner scan on the same connection.
                    for (includeDeleted, inSnapshot) in [(false, false), (true, false), (false, true)] {
                        let options = RecordEnumerationOptions(includeDeleted: includeDeleted)
                        var expected: [String] = []
                        try store.visitRecords(options: options) { view in
                            if accepts(view.body) { expected.append(view.keyString + ":" + String(view.body.count)) }
                            return true
                        }
                        var visited: [String] = []
                        var lastTaken: [UInt8]?
                        func visit() throws {
                            try store.visitRecords(options: options, accepting: { body in
                                let takesIt = accepts(body)
                                lastTaken = takesIt ? Array(body) : nil
                                return takesIt
                            }) { view in
                                #expect(lastTaken == Array(view.body), "\(engine): the visit must follow its own test")
                                lastTaken = nil
                                // Another store's scan, with a test of its own, inside the visit.
                                var inner = 0
                                try other.visitRecords(options: .init(), accepting: { _ in inner += 1; return false }) { _ in true }
                                #expect(inner == others)
                                visited.append(view.keyString + ":" + String(view.body.count))
                                return true
                            }
                        }
                        if inSnapshot { try file.withReadSnapshot { try visit() } } else { try visit() }
                        #expect(visited.sorted() == expected.sorted(), "\(engine) includeDeleted \(includeDeleted)")
                    }
                }
            } catch {
                Issue.record("\(engine): \(error)")
            }
        }
    }
}
