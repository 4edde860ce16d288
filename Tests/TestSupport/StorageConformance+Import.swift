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
        try file.write { try store.importRecord(record) }
        #expect(try store.get("doc") == record)
        #expect(try store.get(sequence: 42)?.key == "doc")
        #expect(try store.expiration(of: "doc") == 1_700_000_000_000)
        #expect(try store.nextExpiration() == 1_700_000_000_000)
        #expect(try store.lastSequence() == 42)
    }

    /// Re-importing a key replaces its record, sequence and expiration, leaving no stale index entry.
    package static func reimportReplacesRecordAndIndexes(_ file: any DataFile) throws {
        let store = try importer(file)
        try file.write {
            try store.importRecord(Record(key: "doc", body: bytes("one"), sequence: 5, expiration: 100))
            try store.importRecord(Record(key: "doc", body: bytes("two"), sequence: 9))
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
        try file.write {
            try store.importRecord(Record(key: "a", body: bytes("a"), sequence: 3))
            try store.setCounters(lastSequence: 17, purgeCount: 4)
        }
        #expect(try store.lastSequence() == 17)
        #expect(try store.purgeCount() == 4)
        let next = try file.write { try store.set(Record(key: "b", body: bytes("b")), ifSequence: 0) }
        #expect(next == 18)
    }

    /// An import must not take a sequence another key holds, nor sequence 0.
    package static func importRejectsTakenOrZeroSequence(_ file: any DataFile) throws {
        let store = try importer(file)
        try file.write { try store.importRecord(Record(key: "a", body: bytes("a"), sequence: 3)) }
        let taken = #expect(throws: StorageError.self) {
            try file.write { try store.importRecord(Record(key: "b", body: bytes("b"), sequence: 3)) }
        }
        #expect(taken?.code == .invalidParameter)
        #expect(taken?.message.contains("\"a\"") == true)
        #expect(throws: StorageError(.invalidParameter, "invalid parameter")) {
            try file.write { try store.importRecord(Record(key: "c", body: bytes("c"), sequence: 0)) }
        }
    }

    /// The last sequence cannot be set below a stored record's sequence.
    package static func lastSequenceBelowRecordsIsRefused(_ file: any DataFile) throws {
        let store = try importer(file)
        try file.write { try store.importRecord(Record(key: "a", body: bytes("a"), sequence: 10)) }
        #expect(throws: StorageError(.invalidParameter, "invalid parameter")) {
            try file.write { try store.setCounters(lastSequence: 9, purgeCount: 0) }
        }
        #expect(try store.lastSequence() == 10)
    }

    /// Import outside a transaction is refused like any write.
    package static func importOutsideTransactionIsRefused(_ file: any DataFile) throws {
        let store = try importer(file)
        #expect(throws: StorageError.notInTransaction) {
            try store.importRecord(Record(key: "a", body: bytes("a"), sequence: 1))
        }
    }
}
