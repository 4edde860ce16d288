import Foundation

/// What `database-crash-writer rekey` writes and the key-change crash test checks: 200
/// initial documents (every tenth with a blob), then per cycle `n` the document `rekey-<n>` (with
/// a blob) and the counter, each cycle followed by a key change to the next of ``keys``.
package enum RekeyCrashWorkload {
    /// The counter document: `n` is the last committed cycle.
    package static let counterID = "counter"
    /// Documents saved before the first cycle.
    package static let initialDocuments = 200
    /// The keys cycled through: none, then two raw AES-256 keys.
    package static let keys: [Data?] = [nil, Data((0..<32).map { UInt8($0) }), Data((0..<32).map { UInt8(255 - $0) })]

    /// The text of document number `number`.
    package static func text(_ number: Int) -> String { "rekey workload document \(number)" }

    /// Whether document `id` (number `number`) carries a blob.
    package static func hasBlob(id: String, number: Int) -> Bool { id.hasPrefix("rekey-") || number % 10 == 0 }

    /// The content of that blob: 3 KB, distinct per document.
    package static func blobContent(id: String) -> [UInt8] {
        var generator = SplitMix64(seed: UInt64(truncatingIfNeeded: id.utf8.reduce(5381) { $0 &* 33 &+ Int($1) }))
        return (0..<3_072).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
    }
}
