#if canImport(Glibc)
import Glibc
#endif
import Fleece

/// Finds the blobs a document body refers to: every dictionary with `"@type": "blob"` at any
/// depth, and every entry of a top-level `_attachments` dictionary (the 1.x / Sync Gateway form).
package enum BlobReferences {
    /// The property that marks a dictionary as a blob reference.
    package static let typeKey = "@type"
    /// The `@type` value of a blob dictionary.
    package static let blobType = "blob"
    /// The legacy top-level attachments dictionary.
    package static let attachmentsKey = "_attachments"

    /// Whether the body refers to any blob (the has-attachments flag): Couchbase Lite 2.8 sets
    /// it for any `"@type": "blob"` dictionary, digest or not, or a top-level `_attachments`.
    package static func containsBlobs(_ body: FleeceValue) -> Bool {
        if let root = body.dictionary, root[attachmentsKey] != nil { return true }
        return containsBlobDictionary(body, depth: 0)
    }

    /// ``containsBlobs(_:)`` for a whole Fleece body, skipping the walk when the bytes cannot
    /// hold a blob: `@type` is never a shared key (`@` is not eligible), so a body with a blob
    /// dictionary holds the string `@type` literally.
    package static func containsBlobs(body bytes: [UInt8], root: FleeceValue) -> Bool {
        if let dictionary = root.dictionary, dictionary[attachmentsKey] != nil { return true }
        guard contains(bytes, typeKeyBytes) else { return false }
        return containsBlobDictionary(root, depth: 0)
    }

    /// Whether a body could refer to a blob, judged from its bytes alone (no parsing): it must
    /// hold the string `@type`, or `_attachments` as a string or as a shared key.
    package static func mayContainBlobs(body bytes: [UInt8], sharedKeys: SharedKeys) -> Bool {
        contains(bytes, typeKeyBytes) || sharedKeys.index(for: attachmentsKey) != nil
            || contains(bytes, attachmentsKeyBytes)
    }

    private static let attachmentsKeyBytes = Array(attachmentsKey.utf8)

    private static let typeKeyBytes = Array(typeKey.utf8)

    /// memchr to each candidate first byte, then memcmp: every save of a document looks
    /// through its whole body once (Glibc's memmem is not visible to Swift).
    private static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard let first = needle.first, haystack.count >= needle.count else { return false }
        return haystack.withUnsafeBytes { hay in
            needle.withUnsafeBytes { pin in
                guard let base = hay.baseAddress, let pinBase = pin.baseAddress else { return false }
                let lastStart = hay.count - pin.count
                var start = 0
                while start <= lastStart, let hit = memchr(base + start, Int32(first), lastStart - start + 1) {
                    if memcmp(hit, pinBase, pin.count) == 0 { return true }
                    start = base.distance(to: UnsafeRawPointer(hit)) + 1
                }
                return false
            }
        }
    }

    /// Every blob dictionary in the body (blobs first in document order, then `_attachments`
    /// entries), as `(dictionary, path)`.
    package static func blobDictionaries(_ body: FleeceValue) -> [FleeceDict] {
        var found: [FleeceDict] = []
        collect(body, into: &found, depth: 0)
        if let attachments = body.dictionary?[attachmentsKey]?.dictionary {
            for (_, entry) in attachments {
                if let dict = entry.dictionary, dict[typeKey]?.string != blobType { found.append(dict) }
            }
        }
        return found
    }

    /// Fleece nesting is bounded when validated, but a guard keeps recursion finite regardless.
    private static let maximumDepth = 512

    private static func containsBlobDictionary(_ value: FleeceValue, depth: Int) -> Bool {
        guard depth < maximumDepth else { return false }
        if let dict = value.dictionary {
            if dict[typeKey]?.string == blobType { return true }
            for (_, child) in dict where containsBlobDictionary(child, depth: depth + 1) { return true }
        } else if let array = value.array {
            for child in array where containsBlobDictionary(child, depth: depth + 1) { return true }
        }
        return false
    }

    private static func collect(_ value: FleeceValue, into found: inout [FleeceDict], depth: Int) {
        guard depth < maximumDepth else { return }
        if let dict = value.dictionary {
            if dict[typeKey]?.string == blobType {
                found.append(dict)
                return
            }
            for (_, child) in dict { collect(child, into: &found, depth: depth + 1) }
        } else if let array = value.array {
            for child in array { collect(child, into: &found, depth: depth + 1) }
        }
    }
}
