import Foundation
import LiteStorage
import Testing

extension StorageConformance {
    // MARK: Flags without a new sequence

    /// Setting flags keeps the record's sequence, the store's last sequence and the change
    /// order; it commits and rolls back with its transaction; a missing key answers false.
    package static func setFlagsKeepsTheSequence(_ file: any DataFile) throws {
        let store = try file.keyStore("default")
        let first = try file.write { txn in try store.set(Record(key: "a", version: [1], body: [1]), ifSequence: 0, in: txn) }
        let second = try file.write { txn in try store.set(Record(key: "b", version: [1], body: [2]), ifSequence: 0, in: txn) }
        #expect(try file.write { txn in try store.setFlags("a", to: [.synced, .hasAttachments], in: txn) })
        let record = try #require(try store.get("a"))
        #expect(record.sequence == first)
        #expect(record.flags == [.synced, .hasAttachments])
        #expect(record.body == [1])
        #expect(try store.lastSequence() == second)
        #expect(try store.enumerate(since: 0, options: .init()).collect().map(\.key) == ["a", "b"])
        #expect(try file.write { txn in try store.setFlags("missing", to: [.synced], in: txn) } == false)

        struct Abort: Error {}
        _ = try? file.write { txn in
            try store.setFlags("b", to: [.synced], in: txn)
            throw Abort()
        }
        #expect(try store.get("b")?.flags == [])
    }

    /// Adding flags on a sequence condition: only a record still at that sequence gets them
    /// (its other flags, sequence and body stay); another sequence or a missing key answers
    /// false and changes nothing.
    package static func addFlagsHonoursTheSequence(_ file: any DataFile) throws {
        let store = try file.keyStore("default")
        let first = try file.write { txn in try store.set(Record(key: "a", version: [1], body: [1]), ifSequence: 0, in: txn) }
        #expect(try file.write { txn in try store.setFlags("a", to: [.hasAttachments], in: txn) })
        #expect(try file.write { txn in try store.addFlags(.synced, key: "a", ifSequence: first + 1, in: txn) } == false)
        #expect(try store.get("a")?.flags == [.hasAttachments])
        #expect(try file.write { txn in try store.addFlags(.synced, key: "a", ifSequence: first, in: txn) })
        let record = try #require(try store.get("a"))
        #expect(record.flags == [.hasAttachments, .synced])
        #expect(record.sequence == first)
        #expect(record.body == [1])
        #expect(try store.lastSequence() == first)
        #expect(try file.write { txn in try store.addFlags(.synced, key: "a", ifSequence: first, in: txn) })
        #expect(try file.write { txn in try store.addFlags(.synced, key: "missing", ifSequence: first, in: txn) } == false)
    }
}
