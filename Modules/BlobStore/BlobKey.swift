import Crypto
import FoundationEssentials
import LiteSupport

/// The name of a blob: the SHA-1 digest of its content.
///
/// Couchbase Lite writes a blob's key in documents as `sha1-` followed by the 28-character
/// standard base64 of the digest (with `=` padding), and names the blob's file in the bundle's
/// `Attachments/` folder after the same base64 with `/` replaced by `_`, plus `.blob`.
/// Couchbase Lite 1.x named the file after the digest in uppercase hex instead.
///
/// ```swift
/// let key = try BlobKey("sha1-P1i5kI/sosq745/9BDR7kEghKps=")
/// key.fileName        // "P1i5kI_sosq745_9BDR7kEghKps=.blob"
/// key.legacyFileName  // "3F58B9908FECA2CABBE39FFD04347B9048212A9B.blob"
/// BlobKey(hashing: Array("attach1".utf8)) == key  // true
/// ```
package struct BlobKey: Hashable, Sendable {
    /// The number of bytes in a SHA-1 digest.
    package static let digestLength = 20

    /// The prefix of the key's string form, naming the digest algorithm.
    package static let stringPrefix = "sha1-"

    /// The extension of every blob file name, in both the 2.x and the 1.x layout.
    package static let fileExtension = ".blob"

    // Invariant: exactly `digestLength` bytes; every initialiser checks it.
    private let bytes: [UInt8]

    /// The 20 bytes of the SHA-1 digest.
    package var digest: [UInt8] { bytes }

    /// Makes a key from a raw 20-byte SHA-1 digest.
    ///
    /// - Throws: `BlobStoreError.invalidKey` when `digest` is not exactly 20 bytes long.
    package init(digest: some Sequence<UInt8>) throws(BlobStoreError) {
        let bytes = Array(digest)
        guard bytes.count == Self.digestLength else {
            throw .invalidKey("a SHA-1 digest is \(Self.digestLength) bytes, got \(bytes.count)")
        }
        self.bytes = bytes
    }

    /// The key of the given content: its SHA-1 digest.
    package init(hashing content: some DataProtocol) {
        var hasher = Insecure.SHA1()
        hasher.update(data: content)
        self.init(finalizing: hasher)
    }

    /// The key of the content fed to `hasher`.
    init(finalizing hasher: Insecure.SHA1) {
        bytes = Array(hasher.finalize())
    }

    /// Parses a key's string form, `sha1-` followed by the 28-character base64 digest.
    ///
    /// Parsing is strict: any other prefix, length or alphabet, missing padding, a non-canonical
    /// encoding, whitespace or path-like text is rejected, so a parsed key can always be turned
    /// into a file name inside the store and never names anything outside it.
    ///
    /// - Throws: `BlobStoreError.invalidKey` naming the text and what is wrong with it.
    package init(_ string: String) throws(BlobStoreError) {
        guard string.hasPrefix(Self.stringPrefix) else {
            throw .invalidKey("\(Self.quoted(string)) does not start with \"\(Self.stringPrefix)\"")
        }
        let base64 = String(string.dropFirst(Self.stringPrefix.count))
        guard let bytes = Self.decodeBase64Digest(base64) else {
            throw .invalidKey("\(Self.quoted(string)) is not \"\(Self.stringPrefix)\" followed by "
                + "the 28-character base64 of a 20-byte SHA-1 digest")
        }
        self.bytes = bytes
    }

    /// Parses a blob file name of the 2.x layout, `<base64 digest, '/' → '_'>.blob`.
    ///
    /// - Throws: `BlobStoreError.invalidKey` when `fileName` is not such a name.
    package init(fileName: String) throws(BlobStoreError) {
        guard fileName.hasSuffix(Self.fileExtension), !fileName.contains("/") else {
            throw .invalidKey("file name \(Self.quoted(fileName)) is not <base64 SHA-1>.blob")
        }
        let base64 = String(fileName.dropLast(Self.fileExtension.count)).replacing("_", with: "/")
        guard let bytes = Self.decodeBase64Digest(base64) else {
            throw .invalidKey("file name \(Self.quoted(fileName)) is not <base64 SHA-1>.blob")
        }
        self.bytes = bytes
    }

    /// Parses a Couchbase Lite 1.x attachment file name, `<40 hex digits>.blob`.
    ///
    /// 1.x writes uppercase hex; lowercase is accepted too, since early 1.x releases wrote it.
    ///
    /// - Throws: `BlobStoreError.invalidKey` when `legacyFileName` is not such a name.
    package init(legacyFileName: String) throws(BlobStoreError) {
        let utf8 = Array(legacyFileName.utf8)
        let hexLength = Self.digestLength * 2
        guard legacyFileName.hasSuffix(Self.fileExtension),
              utf8.count == hexLength + Self.fileExtension.utf8.count else {
            throw .invalidKey("1.x attachment file name \(Self.quoted(legacyFileName)) is not "
                + "<40 hex digits>.blob")
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Self.digestLength)
        for index in stride(from: 0, to: hexLength, by: 2) {
            guard let high = HexText.digitValue(utf8[index]), let low = HexText.digitValue(utf8[index + 1]) else {
                throw .invalidKey("1.x attachment file name \(Self.quoted(legacyFileName)) is not "
                    + "<40 hex digits>.blob")
            }
            bytes.append(high << 4 | low)
        }
        self.bytes = bytes
    }

    /// The 28-character standard base64 of the digest, with `=` padding.
    package var base64Digest: String { Data(bytes).base64EncodedString() }

    /// The key's string form as documents carry it: `sha1-<base64 digest>`.
    package var string: String { Self.stringPrefix + base64Digest }

    /// The digest in uppercase hex, as Couchbase Lite 1.x names attachment files.
    package var hexDigest: String { HexText.string(bytes, uppercase: true) }

    /// The blob's file name in a 2.x `Attachments/` folder: base64 digest, `/` → `_`, `.blob`.
    package var fileName: String {
        base64Digest.replacing("/", with: "_") + Self.fileExtension
    }

    /// The attachment's file name in a 1.x `attachments/` folder: uppercase hex digest, `.blob`.
    package var legacyFileName: String { hexDigest + Self.fileExtension }

    /// Decodes exactly 28 characters of canonical, padded standard base64 into 20 bytes.
    private static func decodeBase64Digest(_ text: String) -> [UInt8]? {
        // 20 bytes encode to 27 significant characters plus one `=`.
        guard text.utf8.count == 28, text.hasSuffix("="),
              let data = Data(base64Encoded: text), data.count == digestLength else {
            return nil
        }
        // Re-encoding rejects the 16 spellings whose unused low bits are not zero.
        guard data.base64EncodedString() == text else { return nil }
        return Array(data)
    }

    /// Quotes untrusted text for an error message, shortened so a huge input stays readable.
    static func quoted(_ text: String) -> String {
        let limit = 80
        let shown = text.count > limit ? String(text.prefix(limit)) + "…" : text
        return "\"" + shown.debugDescription.dropFirst().dropLast() + "\""
    }
}

extension BlobKey: CustomStringConvertible {
    /// The key's string form, `sha1-<base64 digest>`.
    package var description: String { string }
}

extension BlobKey: Comparable {
    /// Orders keys by their digest bytes, so listings come out in a stable order.
    package static func < (lhs: BlobKey, rhs: BlobKey) -> Bool {
        lhs.bytes.lexicographicallyPrecedes(rhs.bytes)
    }
}
