import Crypto
import FoundationEssentials
import LiteSupport

/// Reads one blob in chunks, hashing as it goes, and checks the content when the end is reached.
///
/// Memory stays at one chunk however large the blob. Because the digest is known only after the
/// last byte, a corrupt file is reported by the read that reaches the end (it throws instead
/// of returning 0): a caller must not treat the content as good before that read returns 0.
///
/// ```swift
/// let reader = try store.makeReader(for: key, expectedLength: 1_000_000)
/// while let chunk = try reader.readChunk() { consume(chunk) }   // nil = end, verified
/// ```
///
/// In an encrypted store the reader decrypts one block at a time, and gives the content (its
/// length is the content's, not the file's); a file that does not decrypt under the store's
/// key (a wrong key, or damage) is reported as `.corrupt` when opened or, at the latest, by the
/// digest check at the end.
///
/// A reader belongs to one thread at a time. It closes its file when released.
package final class BlobReader: Sendable {
    /// The blob being read.
    package let key: BlobKey
    /// The length of the content when the file was opened: the number of bytes the reader will give.
    package let length: Int64

    private let path: String
    private let expectedLength: Int64?
    /// Where the reading is; behind a lock so that a reader may be handed between threads (the
    /// replicator's body source), though one reads it at a time.
    private struct Progress: Sendable {
        var descriptor: FileDescriptor?
        /// Set in an encrypted store.
        var decryptor: BlobDecryptor?
        var hasher = Insecure.SHA1()
        var bytesRead: Int64 = 0
        var reachedVerifiedEnd = false
    }
    private let progress = Locked(Progress())

    init(key: BlobKey, path: String, expectedLength: Int64?, encryptionKey: AES256Key?) throws(BlobStoreError) {
        self.key = key
        self.path = path
        self.expectedLength = expectedLength
        let descriptor: FileDescriptor
        do {
            descriptor = try FileDescriptor.openForReading(path)
        } catch where error.isNotFound {
            let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
            throw BlobStoreError(.notFound, "blob \(key): its file \"\(key.fileName)\" is missing "
                + "from the blob store at \"\(directory)\"", underlying: error)
        } catch {
            throw BlobStoreError(.io, "blob \(key): cannot open \"\(path)\"", underlying: error)
        }
        let fileSize: Int64
        do {
            fileSize = try descriptor.size()
        } catch {
            descriptor.close()
            throw BlobStoreError(.io, "blob \(key): cannot read the size of \"\(path)\"", underlying: error)
        }
        var decryptor: BlobDecryptor?
        if let encryptionKey {
            do {
                decryptor = try BlobDecryptor(descriptor: descriptor, fileSize: fileSize,
                                              key: EncryptedBlobFormat.symmetricKey(encryptionKey))
            } catch {
                descriptor.close()
                throw Self.decryptionError(error, key: key, path: path)
            }
        }
        length = decryptor?.contentLength ?? fileSize
        if let expectedLength, expectedLength != length {
            descriptor.close()
            throw sizeMismatch(actual: length, expected: expectedLength)
        }
        progress.withLock {
            $0.descriptor = descriptor
            $0.decryptor = decryptor
        }
    }

    /// The number of bytes given out so far.
    package var offset: Int64 { progress.withLock { $0.bytesRead } }

    /// Reads the next bytes into `buffer` (which must not be empty).
    ///
    /// - Returns: the number of bytes read; 0 only at the end, once the length and digest have
    ///   been checked.
    /// - Throws: `BlobStoreError` `.corrupt` when the end is reached and the content does not
    ///   match the key or length, `.closed` after ``close()``, `.io` when the file cannot be read.
    package func read(into buffer: UnsafeMutableRawBufferPointer) throws(BlobStoreError) -> Int {
        try progress.withLock { progress in
            Result { () throws(BlobStoreError) in try read(into: buffer, progress: &progress) }
        }.get()
    }

    private func read(into buffer: UnsafeMutableRawBufferPointer,
                      progress: inout Progress) throws(BlobStoreError) -> Int {
        if progress.reachedVerifiedEnd { return 0 }
        guard let descriptor = progress.descriptor else {
            throw BlobStoreError(.closed, "blob \(key): the reader was closed")
        }
        guard !buffer.isEmpty else {
            throw BlobStoreError(.invalidArgument, "blob \(key): read into an empty buffer")
        }
        let count: Int
        if progress.decryptor != nil {
            do {
                count = try progress.decryptor?.read(into: buffer, from: descriptor) ?? 0
            } catch {
                Self.close(&progress)
                throw Self.decryptionError(error, key: key, path: path)
            }
        } else {
            do {
                count = try descriptor.read(into: buffer)
            } catch {
                throw BlobStoreError(.io, "blob \(key): cannot read \"\(path)\"", underlying: error)
            }
        }
        if count == 0 {
            try verifyEnd(&progress)
            return 0
        }
        progress.hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: buffer[..<count]))
        progress.bytesRead += Int64(count)
        return count
    }

    /// Reads the next chunk of at most `maxLength` bytes.
    ///
    /// - Returns: the chunk, or nil at the end, once the length and digest have been checked.
    package func readChunk(maxLength: Int = BlobStore.defaultChunkSize) throws(BlobStoreError) -> Data? {
        guard maxLength > 0 else {
            throw BlobStoreError(.invalidArgument, "blob \(key): chunk size \(maxLength) is not positive")
        }
        let remaining = max(0, length - offset)
        // Asking for at least one byte past the known end lets the read detect the end.
        var chunk = Data(count: Int(min(Int64(maxLength), max(remaining, 1))))
        let count = try chunk.withUnsafeMutableBytes { buffer in
            Result { () throws(BlobStoreError) in try read(into: buffer) }
        }.get()
        if count == 0 { return nil }
        if count < chunk.count { chunk.removeSubrange(count...) }
        return chunk
    }

    /// Reads everything that is left and checks it.
    package func readToEnd() throws(BlobStoreError) -> Data {
        let remaining = max(0, length - offset)
        guard let capacity = Int(exactly: remaining) else {
            throw BlobStoreError(.io, "blob \(key): \(remaining) bytes do not fit in memory")
        }
        var content = Data(count: capacity)
        var filled = 0
        while filled < capacity {
            let count = try content.withUnsafeMutableBytes { buffer in
                Result { () throws(BlobStoreError) in
                    try read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]))
                }
            }.get()
            if count == 0 { break }  // The file shrank; `read` has already thrown for that.
            filled += count
        }
        // Read on to the end, so the digest is checked (and a file that grew is noticed).
        while let extra = try readChunk() { content.append(extra) }
        return content
    }

    /// Closes the file; further reads throw. Closing twice is harmless.
    package func close() {
        progress.withLock(Self.close)
    }

    private static func close(_ progress: inout Progress) {
        progress.descriptor?.close()
        progress.descriptor = nil
    }

    deinit { close() }

    private func verifyEnd(_ progress: inout Progress) throws(BlobStoreError) {
        Self.close(&progress)
        let bytesRead = progress.bytesRead
        if bytesRead != length {
            throw BlobStoreError(.corrupt, "blob \(key): file \"\(path)\" changed while it was read "
                + "(\(length) bytes when opened, \(bytesRead) read)")
        }
        if let expectedLength, expectedLength != bytesRead {
            throw sizeMismatch(actual: bytesRead, expected: expectedLength)
        }
        let actual = BlobKey(finalizing: progress.hasher)
        guard actual == key else {
            throw BlobStoreError(.corrupt, "blob \(key): file \"\(path)\" is corrupt: its content "
                + "has digest \(actual), not the digest its name promises")
        }
        progress.reachedVerifiedEnd = true
    }

    private static func decryptionError(_ failure: BlobDecryptor.Failure, key: BlobKey, path: String)
        -> BlobStoreError {
        switch failure {
        case .wrongSize:
            BlobStoreError(.corrupt, "blob \(key): file \"\(path)\" is not an encrypted blob (its size fits no "
                + "encrypted blob file): it was stored unencrypted, or it is truncated")
        case .undecryptable:
            BlobStoreError(.corrupt, "blob \(key): file \"\(path)\" cannot be decrypted: the encryption key is "
                + "wrong, or the file is damaged")
        case .truncated:
            BlobStoreError(.corrupt, "blob \(key): file \"\(path)\" changed while it was read (it is shorter "
                + "than when it was opened)")
        case .io(let error):
            BlobStoreError(.io, "blob \(key): cannot read \"\(path)\"", underlying: error)
        }
    }

    private func sizeMismatch(actual: Int64, expected: Int64) -> BlobStoreError {
        BlobStoreError(.corrupt, "blob \(key): file \"\(path)\" is \(actual) bytes but the blob's "
            + "length is \(expected); the file is corrupt or truncated")
    }
}
