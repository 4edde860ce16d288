/// The document workload `database-crash-writer` runs and the database crash tests check: a
/// deterministic sequence of transactions, so the state after transaction `k` can be computed.
///
/// Transaction `n` saves document `b<n>` (with a blob), and on some `n` also updates, deletes
/// or purges an older document; it always sets the `counter` document to `n`, in the same
/// batch. Some transactions are followed by a compaction (in the purge workload).
package enum DatabaseCrashWorkload {
    /// Which write paths a run exercises.
    package enum Kind: String, CaseIterable, Sendable {
        /// Saves and updates of documents carrying blobs.
        case blobs
        /// The same, with a value index on `category` and a full-text index on `text`.
        case indexes
        /// The same, with deletions, purges and a compaction after every eighth transaction.
        case purge
    }

    /// What one document holds.
    package struct DocumentState: Equatable, Sendable {
        /// The transaction that last wrote it.
        package var revision: Int
        /// Its `category` (value-indexed).
        package var category: String
        /// Its `text` (full-text indexed).
        package var text: String
        /// The seed of its blob's content (see ``blobContent(_:)``).
        package var blobSeed: Int
    }

    /// One change of a transaction.
    package enum Operation: Equatable, Sendable {
        /// Creates or replaces the document.
        case save(id: String, DocumentState)
        /// Deletes the document (a tombstone).
        case delete(id: String)
        /// Purges the document (no trace).
        case purge(id: String)
    }

    /// The ID of the document that holds the last committed transaction number.
    package static let counterID = "counter"
    /// The categories used (value-index queries check each).
    package static let categories = (0..<7).map { "c\($0)" } + ["updated"]
    /// The words of the texts (full-text queries check each).
    package static let words = (0..<13).map { "w\($0)" }

    /// The state of a document first written by transaction `n` (or updated by it, `updated`).
    package static func state(_ n: Int, updated: Bool = false) -> DocumentState {
        DocumentState(revision: n, category: updated ? "updated" : "c\(n % 7)",
                      text: "w\(n % 11) w\(n % 13) common \(updated ? "again" : "first")",
                      blobSeed: updated ? n + 1_000_000 : n)
    }

    /// The changes of transaction `n` given the documents before it (`live`: not deleted or purged).
    package static func operations(_ n: Int, kind: Kind, live: [String: DocumentState]) -> [Operation] {
        var operations: [Operation] = [.save(id: "b\(n)", state(n))]
        if n % 5 == 0, live["b\(n - 2)"] != nil { operations.append(.save(id: "b\(n - 2)", state(n, updated: true))) }
        if kind == .purge || kind == .indexes {
            if n % 6 == 0, live["b\(n - 4)"] != nil { operations.append(.delete(id: "b\(n - 4)")) }
        }
        if kind == .purge, n % 4 == 0, live["b\(n - 3)"] != nil { operations.append(.purge(id: "b\(n - 3)")) }
        return operations
    }

    /// Whether a compaction follows transaction `n`.
    package static func compactsAfter(_ n: Int, kind: Kind) -> Bool { kind == .purge && n % 8 == 0 }

    /// The live documents after transactions 1…`k`.
    package static func expectedDocuments(after k: Int, kind: Kind) -> [String: DocumentState] {
        var live: [String: DocumentState] = [:]
        guard k > 0 else { return live }
        for n in 1...k {
            for operation in operations(n, kind: kind, live: live) {
                switch operation {
                case let .save(id, state): live[id] = state
                case let .delete(id), let .purge(id): live[id] = nil
                }
            }
        }
        return live
    }

    /// A blob's content: 1–60 KiB of bytes derived from `seed`.
    package static func blobContent(_ seed: Int) -> [UInt8] {
        let length = 1024 + (seed * 7919) % (59 * 1024)
        var random = SplitMix64(seed: UInt64(seed))
        return (0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) }
    }
}
