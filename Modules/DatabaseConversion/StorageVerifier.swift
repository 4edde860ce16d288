import BlobStore
import FoundationEssentials
import LiteStorage

/// Compares two databases record by record and blob by blob, and fails on the first
/// difference with a message naming the store, key or blob.
package enum StorageVerifier {
    /// What a successful verification compared.
    package struct Summary: Sendable, Hashable {
        /// Key stores compared.
        package var keyStores = 0
        /// Records compared (all stores, deleted ones included).
        package var records = 0
        /// Byte-key entries compared.
        package var byteKeyEntries = 0
        /// Blobs compared.
        package var blobs = 0
    }

    /// Checks that `destination` holds exactly what `source` holds: the same key stores with
    /// the same records (key, version, body, flags, sequence, expiration), last sequences and
    /// purge counts, and the same byte-key stores.
    /// - Throws: `.verificationFailed` naming the first difference.
    package static func compare(_ source: any DataFile, _ destination: any DataFile) throws -> Summary {
        var summary = Summary()
        try DatabaseToolsError.wrapping(.ioFailure, "verifying \(destination.path) against \(source.path)") {
            let names = try source.keyStoreNames()
            let otherNames = try destination.keyStoreNames()
            guard names == otherNames else {
                throw mismatch("key stores differ: \(names) in the source, \(otherNames) in the destination")
            }
            for name in names {
                try compareKeyStore(try source.keyStore(name), try destination.keyStore(name), summary: &summary)
            }
            let foreign = try source.foreignIndexes()
            let otherForeign = try destination.foreignIndexes()
            guard foreign.map(\.name) == otherForeign.map(\.name),
                  zip(foreign, otherForeign).allSatisfy({ $0.kind == $1.kind && $0.expression == $1.expression }) else {
                throw mismatch("index definitions differ: \(foreign.map(\.name)) in the source, "
                               + "\(otherForeign.map(\.name)) in the destination")
            }
            // The carrier of those definitions is compared as definitions above.
            let byteNames = try source.byteKeyStoreNames().filter { $0 != ForeignIndex.carrierStoreName }
            let otherByteNames = try destination.byteKeyStoreNames().filter { $0 != ForeignIndex.carrierStoreName }
            guard byteNames == otherByteNames else {
                throw mismatch("byte-key stores differ: \(byteNames) in the source, \(otherByteNames) in the destination")
            }
            for name in byteNames {
                let left = try source.byteKeyStore(name).scanAll()
                let right = try destination.byteKeyStore(name).scanAll()
                defer { left.close(); right.close() }
                while true {
                    let a = try left.next(), b = try right.next()
                    guard a == b else { throw mismatch("byte-key store \"\(name)\" differs at entry \(summary.byteKeyEntries)") }
                    if a == nil { break }
                    summary.byteKeyEntries += 1
                }
            }
        }
        return summary
    }

    private static func compareKeyStore(_ left: any KeyStore, _ right: any KeyStore, summary: inout Summary) throws {
        let name = left.name
        let counters = (try left.lastSequence(), try left.purgeCount())
        let otherCounters = (try right.lastSequence(), try right.purgeCount())
        guard counters == otherCounters else {
            throw mismatch("key store \"\(name)\": last sequence / purge count \(counters.0)/\(counters.1) in the "
                           + "source, \(otherCounters.0)/\(otherCounters.1) in the destination")
        }
        let options = RecordEnumerationOptions(includeDeleted: true)
        let a = try left.enumerate(since: 0, options: options)
        let b = try right.enumerate(since: 0, options: options)
        defer { a.close(); b.close() }
        while true {
            let x = try a.next(), y = try b.next()
            guard x == y else {
                let key = x?.key ?? y?.key ?? "?"
                throw mismatch("key store \"\(name)\": record \"\(key)\" differs (sequence \(x?.sequence ?? 0) in the "
                               + "source, \(y?.sequence ?? 0) in the destination)")
            }
            guard x != nil else { break }
            summary.records += 1
        }
        summary.keyStores += 1
    }

    /// Checks that both blob stores hold the same blobs with the same bytes.
    /// - Throws: `.verificationFailed` naming the first missing or different blob.
    package static func compareBlobs(_ source: BlobStore, _ destination: BlobStore) throws -> Int {
        try DatabaseToolsError.wrapping(.ioFailure, "verifying blobs in \(destination.directory.path)") {
            let keys = try source.allKeys().sorted { $0.string < $1.string }
            let otherKeys = try destination.allKeys().sorted { $0.string < $1.string }
            guard keys == otherKeys else {
                let missing = Set(keys).symmetricDifference(otherKeys).map(\.string).sorted()
                throw mismatch("blob stores differ: \(missing.prefix(3).joined(separator: ", ")) not in both")
            }
            for key in keys where try source.data(for: key) != destination.data(for: key) {
                throw mismatch("blob \(key.string) differs between source and destination")
            }
            return keys.count
        }
    }

    private static func mismatch(_ message: String) -> DatabaseToolsError {
        DatabaseToolsError(.verificationFailed, "verification failed: " + message)
    }
}
