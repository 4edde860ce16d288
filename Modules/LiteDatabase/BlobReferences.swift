import Fleece

/// Finds the blobs a document body refers to: every dictionary with `"@type": "blob"` at any
/// depth, and every entry of a top-level `_attachments` dictionary (the 1.x / Sync Gateway form).
package enum BlobReferences {
    /// The property that marks a dictionary as a blob reference.
    package static let typeKey = "@type"
    package static let blobType = "blob"
    /// The legacy top-level attachments dictionary.
    package static let attachmentsKey = "_attachments"

    /// Whether the body refers to any blob (the has-attachments flag): Couchbase Lite 2.8 sets
    /// it for any `"@type": "blob"` dictionary, digest or not, or a top-level `_attachments`.
    package static func containsBlobs(_ body: FleeceValue) -> Bool {
        if let root = body.dictionary, root[attachmentsKey] != nil { return true }
        return containsBlobDictionary(body, depth: 0)
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
