import Foundation
import LiteStorage
import Testing

/// Conformance checks for ``RecordImporting``, the exact-copy part of the seam.
extension StorageConformance {
    private static func importer(_ file: any DataFile, _ name: String = "default") throws -> any RecordImporting {
        let store = try file.keyStore(name)
        return try #require(store.importing, "\(file.engineName) key stores must support exact import")
    }

    /// An imported record reads back exactly, by key and by its own sequence, with its expiration.
    package static func importedRecordKeepsSequenceAndExpiration(_ file: any DataFile) throws {
        let store = try importer(file)
        let record = Record(key: "doc", version: [9, 8], body: bytes("tree"), flags: [.deleted, .hasAttachments],
                            sequence: 42, expiration: 1_700_000_000_000)
        try file.write { txn in try store.importRecord(record, in: txn) }
        #expect(try store.get("doc") == record)
        #expect(try store.get(sequence: 42)?.key == "doc")
        #expect(try store.expiration(of: "doc") == 1_700_000_000_000)
        #expect(try store.nextExpiration() == 1_700_000_000_000)
        #expect(try store.lastSequence() == 42)
    }

    /// Re-importing a key replaces its record, sequence and expiration, leaving no stale index entry.
    package static func reimportReplacesRecordAndIndexes(_ file: any DataFile) throws {
        let store = try importer(file)
        try file.write { txn in
            try store.importRecord(Record(key: "doc", body: bytes("one"), sequence: 5, expiration: 100), in: txn)
            try store.importRecord(Record(key: "doc", body: bytes("two"), sequence: 9), in: txn)
        }
        #expect(try store.get(sequence: 5) == nil)
        #expect(try store.get(sequence: 9)?.body == bytes("two"))
        #expect(try store.expiration(of: "doc") == nil)
        #expect(try store.expiredKeys(at: 1_000).isEmpty)
        #expect(try store.recordCount(includeDeleted: true) == 1)
    }

    /// Counters set by import persist exactly, and later `set` continues after the last sequence.
    package static func countersAreSetExactly(_ file: any DataFile) throws {
        let store = try importer(file)
        try file.write { txn in
            try store.importRecord(Record(key: "a", body: bytes("a"), sequence: 3), in: txn)
            try store.setCounters(lastSequence: 17, purgeCount: 4, in: txn)
        }
        #expect(try store.lastSequence() == 17)
        #expect(try store.purgeCount() == 4)
        let next = try file.write { txn in try store.set(Record(key: "b", body: bytes("b")), ifSequence: 0, in: txn) }
        #expect(next == 18)
    }

    /// An import must not take a sequence another key holds, nor sequence 0.
    package static func importRejectsTakenOrZeroSequence(_ file: any DataFile) throws {
        let store = try importer(file)
        try file.write { txn in try store.importRecord(Record(key: "a", body: bytes("a"), sequence: 3), in: txn) }
        let taken = #expect(throws: StorageError.self) {
            try file.write { txn in try store.importRecord(Record(key: "b", body: bytes("b"), sequence: 3), in: txn) }
        }
        #expect(taken?.code == .invalidParameter)
        #expect(taken?.message.contains("\"a\"") == true)
        #expect(throws: StorageError(.invalidParameter, "invalid parameter")) {
            try file.write { txn in try store.importRecord(Record(key: "c", body: bytes("c"), sequence: 0), in: txn) }
        }
    }

    /// The last sequence cannot be set below a stored record's sequence.
    package static func lastSequenceBelowRecordsIsRefused(_ file: any DataFile) throws {
        let store = try importer(file)
        try file.write { txn in try store.importRecord(Record(key: "a", body: bytes("a"), sequence: 10), in: txn) }
        #expect(throws: StorageError(.invalidParameter, "invalid parameter")) {
            try file.write { txn in try store.setCounters(lastSequence: 9, purgeCount: 0, in: txn) }
        }
        #expect(try store.lastSequence() == 10)
    }
}
