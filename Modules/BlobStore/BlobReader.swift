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
/// A reader belongs to one thread at a time. It closes its file when released.
package final class BlobReader: Sendable {
    /// The blob being read.
    package let key: BlobKey
    /// The size of the blob's file when it was opened: the number of bytes the reader will give.
    package let length: Int64

    private let path: String
    private let expectedLength: Int64?
    /// Where the reading is; behind a lock so that a reader may be handed between threads (the
    /// replicator's body source), though one reads it at a time.
    private struct Progress: Sendable {
        var descriptor: FileDescriptor?
        var hasher = Insecure.SHA1()
        var bytesRead: Int64 = 0
        var reachedVerifiedEnd = false
    }
    private let progress = Locked(Progress())

    init(key: BlobKey, path: String, expectedLength: Int64?) throws(BlobStoreError) {
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
        do {
            length = try descriptor.size()
        } catch {
            descriptor.close()
            throw BlobStoreError(.io, "blob \(key): cannot read the size of \"\(path)\"", underlying: error)
        }
        if let expectedLength, expectedLength != length {
            descriptor.close()
            throw sizeMismatch(actual: length, expected: expectedLength)
        }
        progress.withLock { $0.descriptor = descriptor }
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
        do {
            count = try descriptor.read(into: buffer)
        } catch {
            throw BlobStoreError(.io, "blob \(key): cannot read \"\(path)\"", underlying: error)
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

    private func sizeMismatch(actual: Int64, expected: Int64) -> BlobStoreError {
        BlobStoreError(.corrupt, "blob \(key): file \"\(path)\" is \(actual) bytes but the blob's "
            + "length is \(expected); the file is corrupt or truncated")
    }
}
