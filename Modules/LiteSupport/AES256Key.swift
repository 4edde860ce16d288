/// A 256-bit AES key for encryption at rest: what a database's `EncryptionKey` becomes below the
/// public API, handed to the storage engine (its pages or files) and to the blob store.
///
/// ```swift
/// guard let key = AES256Key(bytes: rawBytes) else { throw … }   // exactly 32 bytes
/// let options = DataFileOptions(create: true, encryptionKey: key)
/// ```
///
/// Its description never shows the bytes, so a key cannot reach a log through string
/// interpolation.
package struct AES256Key: Sendable, Hashable, CustomStringConvertible {
    /// The key length in bytes.
    package static let byteCount = 32

    /// The key's 32 bytes.
    package let bytes: [UInt8]

    /// Makes a key from exactly 32 bytes; nil for any other length.
    package init?(bytes: [UInt8]) {
        guard bytes.count == Self.byteCount else { return nil }
        self.bytes = bytes
    }

    /// Keys are equal when their bytes are; compared without stopping at the first difference.
    package static func == (lhs: AES256Key, rhs: AES256Key) -> Bool {
        var difference: UInt8 = 0
        for (left, right) in zip(lhs.bytes, rhs.bytes) { difference |= left ^ right }
        return difference == 0
    }

    /// Hashes the key's bytes (for option sets that are compared and hashed whole).
    package func hash(into hasher: inout Hasher) {
        hasher.combine(bytes)
    }

    /// `AES256Key(redacted)`: never the bytes.
    package var description: String { "AES256Key(redacted)" }
}
