import Crypto
import CryptoExtras
import LiteSupport

extension AES256Key {
    /// The salt Couchbase Lite 2.x derives keys from passwords with.
    static let passwordSalt = Array("Salty McNaCl".utf8)
    /// Couchbase Lite 2.x's PBKDF2 rounds.
    static let passwordRounds = 64_000

    /// The key Couchbase Lite 2.x derives from `password` (PBKDF2-HMAC-SHA256 over its UTF-8
    /// bytes, salt "Salty McNaCl", 64,000 rounds), so that the same password opens the same
    /// database here and there. Used by the public `EncryptionKey.password` and the tools'
    /// `--encryption-password-file`.
    ///
    /// - Throws: `DatabaseError` `.crypto` when the derivation fails.
    package init(password: String) throws {
        let derived: SymmetricKey
        do {
            // 64,000 rounds is below what the library accepts checked (210,000): it is Couchbase
            // Lite's count, needed for the same password to give the same key.
            derived = try KDF.Insecure.PBKDF2.deriveKey(
                from: Array(password.utf8), salt: Self.passwordSalt, using: .sha256,
                outputByteCount: Self.byteCount, unsafeUncheckedRounds: Self.passwordRounds)
        } catch {
            throw DatabaseError(.crypto, "cannot derive an encryption key from the password", underlying: error)
        }
        guard let key = derived.withUnsafeBytes({ AES256Key(bytes: Array($0)) }) else {
            throw DatabaseError(.crypto, "deriving an encryption key from a password gave a key of the wrong size")
        }
        self = key
    }
}
