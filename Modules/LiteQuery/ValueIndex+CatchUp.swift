import Fleece
import LiteDatabase
import LiteStorage

/// Keeping a value index in step with writes it did not see.
///
/// Each index records the document store's state (last sequence, purge count) it reflects,
/// under ``stateKey`` in its own store: written when it is built, and advanced just before each
/// of our transactions that changes documents commits — only when the recorded state was the
/// one the transaction started from, so an index that already missed writes stays marked as
/// behind. Couchbase Lite itself (or any writer without our indexers) leaves the recorded
/// state behind; on open, ``catchUp(in:)`` re-indexes the documents changed since (by
/// sequence), or rebuilds when documents were purged meanwhile (a purge leaves no sequence to
/// find).
extension ValueIndex {
    /// The key of the recorded state: 16 bytes, last sequence then purge count, big-endian.
    /// (Below ``entryTag``, so rebuilding, which clears the entries, keeps it.)
    static let stateKey: [UInt8] = [0x00, 0x73]

    /// What ``catchUp(in:)`` did.
    package enum CatchUp: Sendable, Equatable {
        /// The index already reflected every write.
        case current
        /// The documents changed since the recorded state were re-indexed (how many).
        case caughtUp(documents: Int)
        /// The index was rebuilt: documents were purged without it, or it had no recorded state.
        case rebuilt
    }

    /// The state recorded in an index store, or nil when there is none (or it cannot be read).
    static func recordedState(in store: any ByteKeyStore) throws -> DocumentStoreState? {
        guard let bytes = try store.get(stateKey), bytes.count == 16 else { return nil }
        let number = { (range: Range<Int>) in bytes[range].reduce(UInt64(0)) { $0 << 8 | UInt64($1) } }
        return DocumentStoreState(lastSequence: number(0..<8), purgeCount: number(8..<16))
    }

    /// Records `state` as the one the index reflects.
    static func record(_ state: DocumentStoreState, in store: any ByteKeyStore, txn: borrowing WriteTransaction) throws {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(16)
        for number in [state.lastSequence, state.purgeCount] {
            for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: number >> UInt64(shift))) }
        }
        try store.put(stateKey, bytes, in: txn)
    }

    /// The state this index says it reflects (nil: unknown, it must be rebuilt).
    package func recordedState(in core: DatabaseCore) throws -> DocumentStoreState? {
        guard try core.dataFile.byteKeyStoreNames().contains(storeName) else { return nil }
        return try Self.recordedState(in: core.dataFile.byteKeyStore(storeName))
    }

    /// Whether the index reflects every write to the documents.
    package func isCurrent(in core: DatabaseCore) throws -> Bool {
        try recordedState(in: core) == core.documentStoreState()
    }

    /// Advances the recorded state over a transaction of ours, unless the index was already
    /// behind when it began (then the next open catches up).
    package func transactionWillCommit(from before: DocumentStoreState, to after: DocumentStoreState,
                                       in core: DatabaseCore, txn: borrowing WriteTransaction) throws {
        let store = try core.dataFile.byteKeyStore(storeName)
        guard try Self.recordedState(in: store) == before else { return }
        try Self.record(after, in: store, txn: txn)
    }

    /// Brings the index up to date with writes made without it, in one transaction: the
    /// documents whose sequence is above the recorded one lose their old entries (found by a
    /// scan of the index, since their old bodies are gone) and get entries for their current
    /// revisions; a changed purge count, a recorded sequence above the store's, or no recorded
    /// state rebuilds the index.
    @discardableResult
    package func catchUp(in core: DatabaseCore) throws -> CatchUp {
        // The usual case needs no write transaction (nor waits for another writer's).
        if !core.dataFile.isInTransaction, try isCurrent(in: core) { return .current }
        return try core.inTransaction { txn in
            let store = try core.dataFile.byteKeyStore(storeName)
            let now = try core.documentStoreState()
            guard let recorded = try Self.recordedState(in: store), recorded.purgeCount == now.purgeCount,
                  recorded.lastSequence <= now.lastSequence else {
                try rebuild(in: core, txn: txn)
                return .rebuilt
            }
            guard recorded != now else { return .current }
            var changedIDs: Set<String> = []
            var currentBodies: [(id: String, body: [UInt8])] = []
            let enumerator = try core.documents.enumerate(since: recorded.lastSequence,
                                                          options: RecordEnumerationOptions(includeDeleted: true))
            do {
                defer { enumerator.close() }
                while let record = try enumerator.next() {
                    changedIDs.insert(record.key)
                    if let body = try StoredDocument(record: record).storedCurrentBody {
                        currentBodies.append((record.key, body))
                    }
                }
            }
            var staleKeys: [[UInt8]] = []
            let cursor = try store.scan(ByteKeyRange(lower: [Self.entryTag], upper: [Self.entryTag + 1]), descending: false)
            do {
                defer { cursor.close() }
                while let entry = try cursor.next() {
                    if changedIDs.contains(String(decoding: entry.value, as: UTF8.self)) { staleKeys.append(entry.key) }
                }
            }
            for key in staleKeys { try store.delete(key, in: txn) }
            for (id, body) in currentBodies {
                if let key = try entryKey(id, body: body, core: core) { try store.put(key, Array(id.utf8), in: txn) }
            }
            try Self.record(now, in: store, txn: txn)
            return .caughtUp(documents: changedIDs.count)
        }
    }
}
