import FoundationEssentials

/// One entry of a 1.x document's `_attachments`, and where its file is in the 1.x bundle.
///
/// 1.x stored attachment contents in `attachments/<UPPERCASE hex SHA-1>.blob`; the body keeps a
/// stub (`digest` `"sha1-<base64>"`, `length`, `content_type`, `revpos`, `stub: true`).
package struct LegacyAttachment: Sendable, Hashable {
    /// The attachment's name (its key in `_attachments`).
    package let name: String
    /// The digest exactly as in the body (`"sha1-…"`), or `nil` when the entry has none.
    package let digest: String?
    /// The declared length in bytes, when the entry gives one.
    package let length: Int?
    /// The MIME type (`content_type`, or `content-type` as some writers spelled it).
    package let contentType: String?
    /// The SHA-1 the digest names (20 bytes), or `nil` when the digest is not a valid
    /// `sha1-<base64>` (such an attachment's file cannot be located).
    package let sha1: [UInt8]?
    /// The contents' file name in the bundle's `attachments/` folder (`<UPPERCASE hex>.blob`),
    /// or `nil` when ``sha1`` is.
    package let fileName: String?
    /// True when ``fileName`` was in the bundle's `attachments/` folder when the reader opened
    /// (1.x may have lost the file; LiteCore then skips it).
    package let isFilePresent: Bool
    /// The bundle's `attachments/` folder.
    package let attachmentsFolder: URL

    /// Where 1.x keeps the contents: `<bundle>/attachments/<UPPERCASE hex SHA-1>.blob`.
    package var fileURL: URL? {
        fileName.map { attachmentsFolder.appendingPathComponent($0, isDirectory: false) }
    }

    /// Creates an attachment reference from its parts.
    package init(name: String, digest: String?, length: Int?, contentType: String?,
                 sha1: [UInt8]?, fileName: String?, isFilePresent: Bool, attachmentsFolder: URL) {
        self.name = name
        self.digest = digest
        self.length = length
        self.contentType = contentType
        self.sha1 = sha1
        self.fileName = fileName
        self.isFilePresent = isFilePresent
        self.attachmentsFolder = attachmentsFolder
    }

    /// Decodes a 1.x digest `sha1-<base64>` into the 20-byte SHA-1 it names; `nil` for any
    /// other form (1.x also knew `md5-` digests, whose files cannot be located by name).
    package static func sha1(fromDigest digest: String) -> [UInt8]? {
        guard digest.hasPrefix("sha1-"),
              let data = Data(base64Encoded: String(digest.dropFirst(5))), data.count == 20 else {
            return nil
        }
        return Array(data)
    }

    /// The file name 1.x gave an attachment's contents: its SHA-1 in uppercase hex, `.blob`.
    package static func blobFileName(sha1: [UInt8]) -> String {
        let digits = Array("0123456789ABCDEF".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(sha1.count * 2 + 5)
        for byte in sha1 {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self) + ".blob"
    }
}
