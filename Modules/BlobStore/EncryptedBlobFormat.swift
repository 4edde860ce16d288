import Crypto
import CryptoExtras
import FoundationEssentials
import LiteSupport

/// The layout of an encrypted blob file, as Couchbase Lite 2.x (LiteCore's encrypted stream)
/// writes it, so that an encrypted `Attachments/` folder is interchangeable with theirs.
///
/// The content is cut into blocks of ``blockSize`` bytes, numbered from 0. Each block is
/// encrypted on its own with AES-256-CBC under the database's key, its IV being 8 zero bytes
/// then the block number as a big-endian 64-bit integer, so any block can be decrypted alone.
/// Every block but the last is full and unpadded (ciphertext as long as the plaintext); the last
/// holds the remaining 0 ..< ``blockSize`` bytes with PKCS #7 padding, so a content whose length
/// is a multiple of ``blockSize`` (the empty one included) ends with a block that is all padding.
/// After it come ``trailerSize`` random bytes, which the format calls a nonce but which take no
/// part in the encryption (LiteCore 2.8 writes and reads them and uses the key unchanged).
///
/// Docs: docs/security.md, "Blobs".
enum EncryptedBlobFormat {
    /// The plaintext block size.
    static let blockSize = 4096
    /// The AES block size: the unit of padding.
    static let cipherBlockSize = 16
    /// The random bytes that end the file.
    static let trailerSize = 32

    /// The size of the file that holds `length` bytes of content.
    static func fileSize(contentLength length: Int64) -> Int64 {
        let block = Int64(blockSize)
        let partial = length % block
        return length - partial + (partial / Int64(cipherBlockSize) + 1) * Int64(cipherBlockSize)
            + Int64(trailerSize)
    }

    /// Where the blocks of a file of `fileSize` bytes are: the ciphertext length and the final
    /// block's number; nil when no file in this format has that size.
    static func layout(fileSize: Int64) -> (cipherLength: Int64, finalBlock: Int64)? {
        let cipherLength = fileSize - Int64(trailerSize)
        guard cipherLength >= Int64(cipherBlockSize), cipherLength % Int64(cipherBlockSize) == 0 else {
            return nil
        }
        return (cipherLength, (cipherLength - 1) / Int64(blockSize))
    }

    /// The IV of block `index`.
    static func iv(block index: Int64) throws -> AES._CBC.IV {
        var bytes = [UInt8](repeating: 0, count: cipherBlockSize)
        let number = UInt64(bitPattern: index).bigEndian
        withUnsafeBytes(of: number) { bytes.replaceSubrange(8..<16, with: $0) }
        return try AES._CBC.IV(ivBytes: bytes)
    }

    /// Encrypts block `index`: a full block, or the final one (padded).
    static func encrypt(_ plaintext: UnsafeRawBufferPointer, block index: Int64, isFinal: Bool,
                        key: SymmetricKey) throws -> Data {
        try AES._CBC.encrypt(plaintext, using: key, iv: iv(block: index), noPadding: !isFinal)
    }

    /// Decrypts block `index`; throws when the final block's padding is not valid (a wrong key,
    /// most likely, or a damaged file).
    static func decrypt(_ ciphertext: some DataProtocol, block index: Int64, isFinal: Bool,
                        key: SymmetricKey) throws -> Data {
        try AES._CBC.decrypt(ciphertext, using: key, iv: iv(block: index), noPadding: !isFinal)
    }

    /// The key as swift-crypto takes it.
    static func symmetricKey(_ key: AES256Key) -> SymmetricKey {
        SymmetricKey(data: key.bytes)
    }
}
