import LiteStorage
import LiteSupport

/// How a SQLite database is encrypted at rest: its key, and the checks made before SQLite
/// touches the file (so that a missing or wrong key is reported without writing anything).
/// Connections given one open through ``SQLiteEncryptingVFS``; format: docs/security.md.
package struct SQLiteEncryption: Sendable {
    /// The key.
    let key: AES256Key
    let cipher: SQLitePageCipher

    /// Encryption with `key`.
    package init(key: AES256Key) {
        self.key = key
        cipher = SQLitePageCipher(key: key)
    }

    /// `cblite_key=<64 hex digits>`, for a connection's URI.
    var uriParameter: String {
        SQLiteEncryptingVFS.keyParameter + "=" + key.bytes.map { byte in
            let digits = Array("0123456789abcdef")
            return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
        }.joined()
    }

    /// What the start of a database file says about its encryption.
    package enum FileKind: Sendable, Equatable {
        /// Empty (a creation interrupted before its first write).
        case empty
        /// A plaintext SQLite database.
        case plaintext
        /// Encrypted by this project (our magic).
        case encrypted
        /// Neither: not a database, or one encrypted with a codec this build cannot read.
        case unknown
    }

    /// Classifies the file at `path` from its first 16 bytes; nil when it cannot be read.
    package static func kind(ofFileAt path: String) -> FileKind? {
        // Through SQLite's VFS: this process may have the file open already (Storage-38).
        guard let bytes = SQLiteFileStart(path: path, count: 16)?.bytes else { return nil }
        if bytes.isEmpty { return .empty }
        if bytes == SQLiteEncryptedFile.sqliteMagic { return .plaintext }
        if bytes == SQLiteEncryptedFile.magic { return .encrypted }
        return .unknown
    }

    /// Decrypts page 1 of the encrypted file at `path` and parses its header, checking the key.
    ///
    /// - Throws: `notADatabaseFile` when the key is wrong (page 1 does not authenticate),
    ///   `corruptData` when the file is truncated or its header damaged.
    func header(ofFileAt path: String) throws -> SQLiteFileHeader {
        guard let start = SQLiteFileStart(path: path, count: 65_536) else {
            throw StorageError(.ioError, "cannot read \"\(path)\": check it exists and its permissions")
        }
        let (bytes, size) = (start.bytes, start.size)
        guard bytes.count >= SQLiteEncryptedFile.clearPrefix else {
            throw StorageError(.corruptData, "encrypted SQLite database \"\(path)\" is truncated: \(size) bytes")
        }
        let stored = Int(bytes[16]) << 8 | Int(bytes[17])
        let pageSize = stored == 1 ? 65_536 : stored
        guard pageSize >= 512, pageSize <= 65_536, pageSize & (pageSize - 1) == 0, bytes.count >= pageSize else {
            throw StorageError(.corruptData, "encrypted SQLite database \"\(path)\" is damaged or truncated: its header "
                               + "gives page size \(stored) and it has \(size) bytes")
        }
        var page = Array(bytes.prefix(pageSize))
        let authentic = page.withUnsafeMutableBytes {
            cipher.open($0, from: SQLiteEncryptedFile.clearPrefix, domain: .databasePage, position: 1)
        }
        guard authentic else {
            throw StorageError(.notADatabaseFile, "SQLite database \"\(path)\" is encrypted and the encryption key given "
                               + "is wrong (its first page does not decrypt); open it with the key it was encrypted with")
        }
        page.replaceSubrange(0..<16, with: SQLiteEncryptedFile.sqliteMagic)
        guard let header = SQLiteFileHeader(page) else {
            throw StorageError(.corruptData, "encrypted SQLite database \"\(path)\" is damaged: its header is invalid")
        }
        if size % header.pageSize != 0 || (header.pageCount.map { size < $0 * header.pageSize } ?? false) {
            throw StorageError(.corruptData, "encrypted SQLite database \"\(path)\" is truncated: it has \(size) bytes, "
                               + "not whole pages of \(header.pageSize) bytes as its header promises; restore it from a backup")
        }
        return header
    }
}
