import Crypto
import FoundationEssentials
import LiteSupport

/// Writes one new blob in chunks: each chunk goes to a temporary file and into the SHA-1, and
/// ``finish(expecting:expectedLength:)`` moves the file to its key's name.
///
/// Memory stays at the caller's chunk size however large the blob. The temporary file,
/// `incoming_<random>` in the store's directory, is removed by ``abort()``, by a failed
/// write, or when a writer that was never finished is released; compaction leaves it alone
/// while the writer is open.
///
/// ```swift
/// let writer = try store.makeWriter()
/// for chunk in chunks { try writer.append(chunk) }
/// let key = try writer.finish()
/// ```
///
/// In an encrypted store the file is written in ``EncryptedBlobFormat`` (the SHA-1 is still the
/// content's): whole blocks as they fill, the last one and the trailer at the finish.
///
/// A writer belongs to one thread at a time; use one writer per blob being written.
package final class BlobWriter: Sendable {
    /// The store the blob is written into.
    package let store: BlobStore

    private let temporaryName: String
    private let temporaryPath: String
    /// What was written; behind a lock so that a writer may be handed between threads (the
    /// replicator's incoming blob), though one writes it at a time.
    private struct Progress: Sendable {
        var descriptor: FileDescriptor?
        /// Set in an encrypted store.
        var encryptor: BlobEncryptor?
        var hasher = Insecure.SHA1()
        var bytesWritten: Int64 = 0
        var isDone = false
    }
    private let progress = Locked(Progress())

    private enum AppendOutcome {
        case written
        case closed
        case failed(any Error)
    }

    init(store: BlobStore) throws(BlobStoreError) {
        self.store = store
        let directory = store.directory
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw BlobStoreError(.io, "cannot create the blob store directory \"\(directory.path)\"",
                                 underlying: error)
        }
        let random = UInt64.random(in: .min ... .max)
        temporaryName = BlobStore.temporaryFilePrefix + String(random, radix: 36)
        temporaryPath = directory.appendingPathComponent(temporaryName, isDirectory: false).path
        // Registered before the file exists, so compaction can never see it unprotected.
        BlobStore.liveTemporaryFiles.withLock { _ = $0.insert(temporaryPath) }
        do {
            let descriptor = try FileDescriptor.createExclusively(temporaryPath)
            let encryptor = store.encryptionKey.map { BlobEncryptor(key: EncryptedBlobFormat.symmetricKey($0)) }
            progress.withLock {
                $0.descriptor = descriptor
                $0.encryptor = encryptor
            }
        } catch {
            BlobStore.liveTemporaryFiles.withLock { _ = $0.remove(temporaryPath) }
            throw BlobStoreError(.io, "cannot create a temporary blob file in \"\(directory.path)\"",
                                 underlying: error)
        }
    }

    /// The number of bytes appended so far.
    package var length: Int64 { progress.withLock { $0.bytesWritten } }

    /// Appends bytes to the blob.
    ///
    /// - Throws: `BlobStoreError` `.io` when the file cannot be written (the writer is then
    ///   aborted), `.closed` after ``finish(expecting:expectedLength:)`` or ``abort()``.
    package func append(_ bytes: UnsafeRawBufferPointer) throws(BlobStoreError) {
        let outcome = progress.withLock { progress -> AppendOutcome in
            guard let descriptor = progress.descriptor else { return .closed }
            do {
                if progress.encryptor != nil {
                    let ciphertext = try progress.encryptor?.encrypt(bytes) ?? Data()
                    try ciphertext.withUnsafeBytes { try descriptor.writeAll($0) }
                } else {
                    try descriptor.writeAll(bytes)
                }
            } catch {
                return .failed(error)
            }
            progress.hasher.update(bufferPointer: bytes)
            progress.bytesWritten += Int64(bytes.count)
            return .written
        }
        switch outcome {
        case .written:
            return
        case .closed:
            throw BlobStoreError(.closed, "blob writer \"\(temporaryName)\" was already finished or aborted")
        case .failed(let error):
            abort()
            throw BlobStoreError(.io, "cannot write a blob to \"\(temporaryPath)\"", underlying: error)
        }
    }

    /// Appends bytes to the blob.
    package func append(_ bytes: some DataProtocol) throws(BlobStoreError) {
        for region in bytes.regions {
            // `withUnsafeBytes` rethrows untyped errors; the Result keeps this one typed.
            try region.withUnsafeBytes { buffer in
                Result { () throws(BlobStoreError) in try append(buffer) }
            }.get()
        }
    }

    /// Finishes the blob: flushes it to disk and gives it its key's name in the store.
    ///
    /// When the store already holds the blob, the new copy is discarded. Pass `expecting` or
    /// `expectedLength` when the content must match a digest or length announced in advance
    /// (a document's blob dictionary, an attachment received from a peer); on a mismatch
    /// nothing is stored.
    ///
    /// - Returns: the blob's key.
    /// - Throws: `BlobStoreError` `.contentMismatch` when the content does not match `expecting`
    ///   or `expectedLength`, `.io` when the file cannot be flushed or renamed, `.closed` when
    ///   the writer was already finished or aborted.
    @discardableResult
    package func finish(expecting expectedKey: BlobKey? = nil, expectedLength: Int64? = nil)
        throws(BlobStoreError) -> BlobKey {
        guard let (descriptor, hasher, bytesWritten, encryptor) = progress.withLock({ progress in
            progress.descriptor.map { ($0, progress.hasher, progress.bytesWritten, progress.encryptor) }
        }) else {
            throw BlobStoreError(.closed, "blob writer \"\(temporaryName)\" was already finished or aborted")
        }
        let key = BlobKey(finalizing: hasher)
        if let expectedLength, expectedLength != bytesWritten {
            abort()
            throw BlobStoreError(.contentMismatch, "blob \(expectedKey?.description ?? key.description): "
                + "\(bytesWritten) bytes were written but \(expectedLength) were expected; nothing was stored")
        }
        if let expectedKey, expectedKey != key {
            abort()
            throw BlobStoreError(.contentMismatch, "blob \(expectedKey): the content written has digest "
                + "\(key) instead; nothing was stored")
        }
        if var encryptor {
            do {
                let end = try encryptor.finish()
                try end.withUnsafeBytes { try descriptor.writeAll($0) }
            } catch {
                abort()
                throw BlobStoreError(.io, "blob \(key): cannot write the end of \"\(temporaryPath)\"", underlying: error)
            }
        }
        let fileSize = encryptor == nil ? bytesWritten : EncryptedBlobFormat.fileSize(contentLength: bytesWritten)
        do {
            // A blob never changes once named, and Couchbase Lite marks its blob files read-only.
            try descriptor.makeReadOnly()
            // A document that names the blob may be committed right after this returns.
            try descriptor.synchronize()
        } catch {
            abort()
            throw BlobStoreError(.io, "blob \(key): cannot flush \"\(temporaryPath)\" to disk", underlying: error)
        }
        descriptor.close()
        progress.withLock { $0.descriptor = nil }
        defer { finishCleanup() }

        let finalPath = store.path(for: key)
        do {
            if let existing = try FileSystem.size(finalPath), existing == fileSize {
                // Same name means same content; refreshing the time tells a compaction that
                // started earlier that the blob is wanted again. Not refreshed, it could be
                // deleted under the save that wants it, so a failure fails the write.
                try FileSystem.removeFile(temporaryPath)
                try FileSystem.touch(finalPath)
            } else {
                // Also replaces an existing file of the wrong size (a damaged copy).
                try FileSystem.rename(temporaryPath, to: finalPath)
                try FileSystem.synchronizeDirectory(store.directory.path)
            }
        } catch {
            _ = try? FileSystem.removeFile(temporaryPath)   // allowed: the failure below is what is reported
            throw BlobStoreError(.io, "blob \(key): cannot store the new blob at \"\(finalPath)\"",
                                 underlying: error)
        }
        return key
    }

    /// Abandons the blob and removes its temporary file. Aborting twice is harmless.
    package func abort() {
        let done = progress.withLock { progress -> Bool in
            guard !progress.isDone else { return true }
            progress.descriptor?.close()
            progress.descriptor = nil
            return false
        }
        guard !done else { return }
        _ = try? FileSystem.removeFile(temporaryPath)   // allowed: abandoning; a leftover temporary file is swept by compaction
        finishCleanup()
    }

    deinit { abort() }

    private func finishCleanup() {
        progress.withLock { $0.isDone = true }
        BlobStore.liveTemporaryFiles.withLock { _ = $0.remove(temporaryPath) }
    }
}
