import CryptoExtras
import Foundation
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

    /// The salt Couchbase Lite 2.x derives keys from passwords with.
    static let passwordSalt = Array("Salty McNaCl".utf8)
    /// Couchbase Lite 2.x's PBKDF2 rounds.
    static let passwordRounds = 64_000

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
            do {
                // 64,000 rounds is below what the library accepts unchecked (210,000): it is
                // Couchbase Lite's count, needed for the same password to give the same key.
                let derived = try KDF.Insecure.PBKDF2.deriveKey(
                    from: Array(password.utf8), salt: Self.passwordSalt, using: .sha256,
                    outputByteCount: AES256Key.byteCount, unsafeUncheckedRounds: Self.passwordRounds)
                guard let key = derived.withUnsafeBytes({ AES256Key(bytes: Array($0)) }) else {
                    throw CouchbaseLiteError(.crypto, "deriving an encryption key from a password gave a key of the wrong size")
                }
                return key
            } catch let error as CouchbaseLiteError {
                throw error
            } catch {
                throw CouchbaseLiteError(.crypto, "cannot derive an encryption key from the password", underlying: error)
            }
        }
    }
}
