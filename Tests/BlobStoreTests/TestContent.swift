import BlobStore
import Foundation
import TestSupport

/// Deterministic test content and a store in a fresh temporary directory.
enum TestContent {
    /// `count` pseudo-random bytes, the same for the same seed.
    static func bytes(count: Int, seed: UInt64 = 1) -> [UInt8] {
        var state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
        return (0..<count).map { _ in
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return UInt8(truncatingIfNeeded: state >> 24)
        }
    }

    /// A store over `Attachments/` inside `directory` (not created until the first write).
    static func store(in directory: TemporaryDirectory) -> BlobStore {
        BlobStore(directory: directory.appending("Attachments"))
    }

    /// The names of the files in the store's directory, sorted.
    static func fileNames(in store: BlobStore) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: store.directory.path).sorted()
    }

    /// The key an independent SHA-1 gives for `content`.
    static func referenceKey(_ content: [UInt8]) throws -> BlobKey {
        try BlobKey(digest: ReferenceSHA1.digest(content))
    }
}
