import Foundation
import LiteStorage
import Testing

/// The storage conformance checks: each behaviour of the storage seam written once, run by
/// `Tests/LiteStorageTests` for every `StorageEngineKind` (and reusable by any engine's tests).
///
/// ```swift
/// @Test(arguments: StorageEngineKind.allCases)
/// func staleWriteIsRejected(engine: StorageEngineKind) throws {
///     try withTemporaryDataFile(engine, StorageConformance.staleWriteIsRejected)
/// }
/// ```
package enum StorageConformance {
    /// Bytes of a short string, for bodies and versions.
    package static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    /// Inserts records `key(i)` for `i` in `range`, in one transaction, each with body "body-i".
    package static func insert(_ keys: [String], into store: any KeyStore, of file: any DataFile,
                               flags: (String) -> DocumentFlags = { _ in [] }) throws {
        try file.write { txn in
            for key in keys {
                try store.set(Record(key: key, version: [1], body: bytes("body-\(key)"), flags: flags(key)),
                              ifSequence: 0, in: txn)
            }
        }
    }

    // MARK: CRUD

    /// A stored record reads back with its version, body, flags and sequence.
    package static func recordReadsBack(_ file: any DataFile) throws {
        let store = try file.keyStore("default")
        let sequence = try file.write { txn in
            try store.set(Record(key: "doc", version: [1, 0xAB], body: [1, 2, 3], flags: [.hasAttachments]),
                          ifSequence: 0, in: txn)
        }
        let record = try #require(try store.get("doc"))
        #expect(record.key == "doc")
        #expect(record.version == [1, 0xAB])
        #expect(record.body == [1, 2, 3])
        #expect(record.flags == [.hasAttachments])
        #expect(record.sequence == sequence)
        #expect(record.bodySize == 3)
    }

    /// A missing key reads as `nil`.
    package static func missingRecordIsNil(_ file: any DataFile) throws {
        let store = try file.keyStore("default")
        #expect(try store.get("nope") == nil)
        #expect(try store.get(sequence: 1) == nil)
    }

    /// A meta-only read leaves the body out but reports its size.
    package static func metaOnlyReadSkipsBody(_ file: any DataFile) throws {
        let store = try file.keyStore("default")
        try file.write { txn in try store.set(Record(key: "doc", version: [7], body: [UInt8](repeating: 9, count: 500)),
                                       ifSequence: 0, in: txn) }
        let record = try #require(try store.get("doc", content: .metaOnly))
        #expect(record.body.isEmpty)
        #expect(record.bodySize == 500)
        #expect(record.version == [7])
    }

    /// A record can be found by its sequence, and the old sequence no longer finds it after an update.
    package static func recordIsFoundBySequence(_ file: any DataFile) throws {
        let store = try file.keyStore("default")
        let first = try file.write { txn in try store.set(Record(key: "a", body: [1]), ifSequence: 0, in: txn) }
        let second = try file.write { txn in try store.set(Record(key: "a", body: [2]), ifSequence: first, in: txn) }
        #expect(try store.get(sequence: second)?.body == [2])
        #expect(try store.get(sequence: first) == nil)
    }

    /// Purging removes the record and counts the purge.
    package static func purgeRemovesRecordAndCounts(_ file: any DataFile) throws {
        let store = try file.keyStore("default")
        try insert(["a", "b"], into: store, of: file)
        let removed = try file.write { txn in try store.purge("a", in: txn) }
        let missing = try file.write { txn in try store.purge("zzz", in: txn) }
        #expect(removed)
        #expect(!missing)
        #expect(try store.get("a") == nil)
        #expect(try store.purgeCount() == 1)
        #expect(try store.recordCount() == 1)
    }

    /// Counts include deleted records only when asked.
    package static func countsHonourDeletedFlag(_ file: any DataFile) throws {
        let store = try file.keyStore("default")
        try insert((1...10).map { "k\($0)" }, into: store, of: file) { key in
            ["k7", "k8", "k9", "k10"].contains(key) ? .deleted : []
        }
        #expect(try store.recordCount(includeDeleted: false) == 6)
        #expect(try store.recordCount(includeDeleted: true) == 10)
    }

    // MARK: MVCC

    /// An insert-only write of an existing key is a conflict.
    package static func insertOnlyRejectsExistingKey(_ file: any DataFile) throws {
        let store = try file.keyStore("default")
        try file.write { txn in try store.set(Record(key: "a", body: [1]), ifSequence: 0, in: txn) }
        #expect(throws: StorageError.conflict) {
            try file.write { txn in try store.set(Record(key: "a", body: [2]), ifSequence: 0, in: txn) }
        }
        #expect(try store.get("a")?.body == [1])
    }

    /// A write expecting an outdated sequence is a conflict and changes nothing.
    package static func staleWriteIsRejected(_ file: any DataFile) throws {
        let store = try file.keyStore("default")
        let first = try file.write { txn in try store.set(Record(key: "a", body: [1]), ifSequence: 0, in: txn) }
        try file.write { txn in _ = try store.set(Record(key: "a", body: [2]), ifSequence: first, in: txn) }
        #expect(throws: StorageError.conflict) {
            try file.write { txn in try store.set(Record(key: "a", body: [3]), ifSequence: first, in: txn) }
        }
        #expect(try store.get("a")?.body == [2])
    }

    /// Replacing a key that does not exist is a conflict.
    package static func replacingMissingKeyIsAConflict(_ file: any DataFile) throws {
        let store = try file.keyStore("default")
        #expect(throws: StorageError.conflict) {
            try file.write { txn in try store.set(Record(key: "ghost", body: [1]), ifSequence: 5, in: txn) }
        }
    }

    /// An unconditional write inserts or replaces.
    package static func unconditionalWriteReplaces(_ file: any DataFile) throws {
        let store = try file.keyStore("default")
        try file.write { txn in
            try store.set(Record(key: "a", body: [1]), ifSequence: nil, in: txn)
            try store.set(Record(key: "a", body: [2]), ifSequence: nil, in: txn)
        }
        #expect(try store.get("a")?.body == [2])
        #expect(try store.recordCount() == 1)
    }

    // MARK: Sequences

    /// Sequences increase by one per write, per store, and are never reused after a purge.
    package static func sequencesIncreaseAndAreNeverReused(_ file: any DataFile) throws {
        let store = try file.keyStore("default")
        let other = try file.keyStore("other")
        let (a, b, o) = try file.write { txn in
            (try store.set(Record(key: "a"), ifSequence: 0, in: txn), try store.set(Record(key: "b"), ifSequence: 0, in: txn),
             try other.set(Record(key: "x"), ifSequence: 0, in: txn))
        }
        #expect((a, b, o) == (1, 2, 1))
        try file.write { txn in _ = try store.purge("b", in: txn) }
        let c = try file.write { txn in try store.set(Record(key: "c"), ifSequence: 0, in: txn) }
        #expect(c == 3)
        #expect(try store.lastSequence() == 3)
        #expect(try other.lastSequence() == 1)
    }

    /// A purge of the record holding the last sequence does not lower the last sequence.
    package static func lastSequenceSurvivesPurgeOfNewest(_ file: any DataFile) throws {
        let store = try file.keyStore("default")
        try insert(["a", "b"], into: store, of: file)
        try file.write { txn in _ = try store.purge("b", in: txn) }
        #expect(try store.lastSequence() == 2)
    }

    // MARK: Enumeration

    /// Key enumeration is ascending, honours ranges, and skips deleted records unless asked.
    package static func enumerationByKeyHonoursRangeAndDeleted(_ file: any DataFile) throws {
        let store = try file.keyStore("default")
        let keys = (1...9).map { "doc-\($0)" }
        try insert(keys.reversed(), into: store, of: file) { $0 == "doc-5" ? .deleted : [] }
        let live = try store.enumerate().collect().map(\.key)
        #expect(live == keys.filter { $0 != "doc-5" })
        let all = try store.enumerate(options: .init(includeDeleted: true)).collect().map(\.key)
        #expect(all == keys)
        let range = try store.enumerate(startKey: "doc-3", endKey: "doc-6",
                                        options: .init(includeDeleted: true)).collect().map(\.key)
        #expect(range == ["doc-3", "doc-4", "doc-5", "doc-6"])
    }

    /// Descending key enumeration walks the same range backwards.
    package static func enumerationByKeyDescends(_ file: any DataFile) throws {
        let store = try file.keyStore("default")
        try insert(["a", "b", "c", "d"], into: store, of: file)
        let all = try store.enumerate(options: .init(descending: true)).collect().map(\.key)
        #expect(all == ["d", "c", "b", "a"])
        let range = try store.enumerate(startKey: "b", endKey: "c",
                                        options: .init(descending: true)).collect().map(\.key)
        #expect(range == ["c", "b"])
    }

    /// Keys are ordered by their UTF-8 bytes (uppercase before lowercase, "é" after "z").
    package static func enumerationOrderIsBytewise(_ file: any DataFile) throws {
        let store = try file.keyStore("default")
        try insert(["b", "é", "B", "a", "z", "aa"], into: store, of: file)
        #expect(try store.enumerate().collect().map(\.key) == ["B", "a", "aa", "b", "z", "é"])
    }

    /// Sequence enumeration returns records changed after `since`, oldest change first.
    package static func enumerationBySequenceReturnsLaterChanges(_ file: any DataFile) throws {
        let store = try file.keyStore("default")
        try insert(["a", "b", "c"], into: store, of: file)
        let updated = try file.write { txn in try store.set(Record(key: "a", body: [9], flags: .deleted), ifSequence: 1, in: txn) }
        let changes = try store.enumerate(since: 1, options: .init(includeDeleted: true)).collect()
        #expect(changes.map(\.key) == ["b", "c", "a"])
        #expect(changes.map(\.sequence) == [2, 3, updated])
        #expect(try store.enumerate(since: 1, options: .init()).collect().map(\.key) == ["b", "c"])
    }

    /// Enumeration can require flags (e.g. only conflicted records).
    package static func enumerationFiltersByRequiredFlags(_ file: any DataFile) throws {
        let store = try file.keyStore("default")
        try insert(["a", "b", "c"], into: store, of: file) { $0 == "b" ? .conflicted : [] }
        let conflicted = try store.enumerate(options: .init(requiredFlags: .conflicted)).collect().map(\.key)
        #expect(conflicted == ["b"])
    }
}
