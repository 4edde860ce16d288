import Crypto
import LiteSupport

/// A revision ID of the 2.x revision-tree scheme: a generation and a digest, written in ASCII as
/// `<generation>-<lowercase hex digest>` and stored in binary as `varint(generation) ‖ digest`.
///
/// New revisions get a SHA-1 digest computed exactly as LiteCore computes it (see
/// ``next(after:deleted:body:)``), so the same save on the same parent yields the same ID here
/// and in Couchbase Lite. 1.x databases used 16-byte MD5 digests; any even-length digest is valid.
///
/// ```swift
/// let id = try RevisionID(parsing: "2-db9941f74d7fd45d60c272b796ae50c7")
/// id.generation   // 2
/// ```
package struct RevisionID: Hashable, Sendable {
    /// The number of revisions in the history up to and including this one (1 for a new doc).
    package let generation: UInt64
    /// The digest bytes (20 for SHA-1 revisions).
    package let digest: [UInt8]

    /// LiteCore refuses generations written with more than 20 digits (beyond UInt64 anyway).
    private static let maxGenerationDigits = 20

    /// A revision ID from its parts.
    package init(generation: UInt64, digest: [UInt8]) {
        self.generation = generation
        self.digest = digest
    }

    /// Parses the ASCII form, rejecting anything LiteCore would reject (no generation, a
    /// generation of 0, uppercase or odd-length hex, an empty digest).
    package init(parsing text: String) throws {
        let bytes = Array(text.utf8)
        guard let dash = bytes.firstIndex(of: UInt8(ascii: "-")), dash > 0,
              dash <= Self.maxGenerationDigits else {
            throw Self.invalid(text, "it must look like <generation>-<hex digest>")
        }
        var generation: UInt64 = 0
        for byte in bytes[..<dash] {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else {
                throw Self.invalid(text, "the generation is not a decimal number")
            }
            let (times10, overflow1) = generation.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(UInt64(byte - UInt8(ascii: "0")))
            guard !overflow1, !overflow2 else { throw Self.invalid(text, "the generation is too large") }
            generation = sum
        }
        guard generation > 0 else { throw Self.invalid(text, "the generation must be at least 1") }
        let hex = bytes[(dash + 1)...]
        guard !hex.isEmpty, hex.count % 2 == 0, hex.count <= 2 * 255 else {
            throw Self.invalid(text, "the digest must be a non-empty, even number of hex digits")
        }
        var digest: [UInt8] = []
        digest.reserveCapacity(hex.count / 2)
        var index = hex.startIndex
        while index < hex.endIndex {
            guard let high = Self.hexValue(hex[index]), let low = Self.hexValue(hex[index + 1]) else {
                throw Self.invalid(text, "the digest must be lowercase hexadecimal")
            }
            digest.append(high << 4 | low)
            index += 2
        }
        self.init(generation: generation, digest: digest)
    }

    /// Decodes the binary form stored in the `version` column and in revision trees.
    package init(binary bytes: some Collection<UInt8>) throws {
        var digestStart = bytes.startIndex
        let generation: UInt64
        do throws(Varint.Failure) {
            generation = try Varint.read(bytes, at: &digestStart, end: bytes.endIndex)
        } catch {
            switch error {
            case .truncated: throw DatabaseError(.badRevisionID, "binary revision ID is truncated")
            case .overflow: throw DatabaseError(.badRevisionID, "binary revision ID has an overlong generation")
            }
        }
        // A zero generation marks a version-vector ("clock") ID, which 2.x trees never hold.
        guard generation > 0 else {
            throw DatabaseError(.badRevisionID, "binary revision ID has generation 0 (not a tree revision ID)")
        }
        let digest = Array(bytes[digestStart...])
        guard !digest.isEmpty else { throw DatabaseError(.badRevisionID, "binary revision ID has no digest") }
        self.init(generation: generation, digest: digest)
    }

    /// The ASCII form, e.g. `1-0b2e3c…`.
    package var string: String {
        // Written as ASCII bytes in one buffer: appending scalars one by one was about 1 % of
        // a push's CPU time (every listed and sent revision is written out several times).
        var generationDigits = 1
        var rest = generation / 10
        while rest > 0 {
            generationDigits += 1
            rest /= 10
        }
        let length = generationDigits + 1 + digest.count * 2
        return String(unsafeUninitializedCapacity: length) { buffer in
            var value = generation
            for index in stride(from: generationDigits - 1, through: 0, by: -1) {
                buffer[index] = UInt8(ascii: "0") + UInt8(value % 10)
                value /= 10
            }
            buffer[generationDigits] = UInt8(ascii: "-")
            var position = generationDigits + 1
            for byte in digest {
                buffer[position] = Self.hexDigitBytes[Int(byte >> 4)]
                buffer[position + 1] = Self.hexDigitBytes[Int(byte & 0x0F)]
                position += 2
            }
            return length
        }
    }

    /// The binary form: `varint(generation) ‖ digest`.
    package var binary: [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digest.count + 3)
        Varint.append(generation, to: &bytes)
        bytes.append(contentsOf: digest)
        return bytes
    }

    /// The ID of a new revision whose parent is `parent` (nil for a document's first revision).
    ///
    /// The digest is SHA-1 over: one byte with the length of the parent's ASCII ID (capped at
    /// 255), that ASCII ID, one byte 1 or 0 for deleted, then the revision's exact Fleece body.
    /// The document ID is not part of it.
    package static func next(after parent: RevisionID?, deleted: Bool, body: some Collection<UInt8>) -> RevisionID {
        var hasher = Insecure.SHA1()
        if let parent {
            let ascii = Array(parent.string.utf8.prefix(255))
            hasher.update(data: [UInt8(ascii.count)])
            hasher.update(data: ascii)
        } else {
            hasher.update(data: [0])
        }
        hasher.update(data: [deleted ? 1 : 0])
        // Hashed where it lies when it is contiguous (it always is when saving), not copied.
        let hashedInPlace: Void? = body.withContiguousStorageIfAvailable { hasher.update(bufferPointer: UnsafeRawBufferPointer($0)) }
        if hashedInPlace == nil { hasher.update(data: Array(body)) }
        // Copied as bytes: `Array(digest)` walks the digest's iterator.
        return RevisionID(generation: (parent?.generation ?? 0) + 1, digest: hasher.finalize().withUnsafeBytes { Array($0) })
    }

    private static let hexDigitBytes: [UInt8] = Array("0123456789abcdef".utf8)

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        default: return nil
        }
    }

    private static func invalid(_ text: String, _ reason: String) -> DatabaseError {
        DatabaseError(.badRevisionID, "invalid revision ID \"\(text.prefix(80))\": \(reason)")
    }
}

extension RevisionID: Comparable {
    /// Revision order: by generation, then by digest bytes; the higher one wins a conflict.
    package static func < (lhs: RevisionID, rhs: RevisionID) -> Bool {
        if lhs.generation != rhs.generation { return lhs.generation < rhs.generation }
        return lhs.digest.lexicographicallyPrecedes(rhs.digest)
    }
}

extension RevisionID: CustomStringConvertible {
    /// The ASCII form.
    package var description: String { string }
}
