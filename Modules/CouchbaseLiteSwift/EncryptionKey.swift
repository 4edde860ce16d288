import Foundation
import LiteDatabase
import LiteSupport

/// The key a database is encrypted with at rest (``DatabaseConfiguration/encryptionKey``): a
/// raw 256-bit AES key, or a password the key is derived from as Couchbase Lite 2.x derives it
/// (PBKDF2-HMAC-SHA256, salt "Salty McNaCl", 64,000 rounds), so the same password gives the
/// same key here and there.
///
/// ```swift
/// let config = DatabaseConfiguration()
/// config.encryptionKey = .password("correct horse battery staple")
/// let database = try Database(name: "wallet", config: config)
/// ```
///
/// Keep the key (or password) out of the database's folder: anyone who has both can read it.
/// Both storage engines encrypt their files with it, and the blobs in `Attachments/` too
/// (docs/security.md).
public enum EncryptionKey: Sendable {
    /// A raw AES-256 key: exactly 32 bytes, from a cryptographically secure random source.
    case key(Data)
    /// A password; the key is derived from its UTF-8 bytes.
    case password(String)

    /// The 32-byte key.
    ///
    /// - Throws: `.invalidParameter` for a raw key that is not 32 bytes; `.crypto` when the
    ///   derivation fails.
    package func aes256Key() throws -> AES256Key {
        switch self {
        case .key(let data):
            guard let key = AES256Key(bytes: Array(data)) else {
                throw CouchbaseLiteError(.invalidParameter, "an encryption key must be exactly \(AES256Key.byteCount) "
                                         + "bytes (AES-256), but this one has \(data.count); use a random 32-byte key "
                                         + "or EncryptionKey.password")
            }
            return key
        case .password(let password):
            // Derived below the API, where the tools' --encryption-password-file derives it too.
            return try CouchbaseLiteError.wrapping("deriving an encryption key from a password") {
                try AES256Key(password: password)
            }
        }
    }
}
