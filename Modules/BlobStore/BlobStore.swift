import FoundationEssentials
import LiteSupport

/// Content-addressed blob files in one directory: a database bundle's `Attachments/` folder.
///
/// Each blob is a file named after its ``BlobKey`` (``BlobKey/fileName``). A blob is written
/// to a temporary `incoming_*` file in the same directory while its SHA-1 is computed, then
/// renamed to its key's name in one atomic step, so a blob file is either absent or complete.
/// Reads verify the content against the key. The directory is created on the first write.
///
/// A store made with an encryption key writes every blob file encrypted, in Couchbase Lite's
/// encrypted blob format (``EncryptedBlobFormat``), and reads them back through the key; a blob's
/// key stays the digest of its content. Readers and writers hold one 4 KB block at a time.
///
/// The store is safe to use from any number of threads; concurrent writers of the same or of
/// different content do not disturb each other (the same content ends up stored once).
///
/// ```swift
/// let store = BlobStore(directory: bundle.appendingPathComponent("Attachments"))
/// let key = try store.write(Data("hello".utf8))
/// let content = try store.data(for: key)            // verified against the key
///
/// let writer = try store.makeWriter()                // streaming, for large content
/// try writer.append(firstChunk)
/// try writer.append(secondChunk)
/// let bigKey = try writer.finish()
/// ```
package final class BlobStore: Sendable {
    /// The size of the chunks in which streams and files are copied.
    package static let defaultChunkSize = 64 * 1024

    /// The name prefix of a writer's temporary file.
    package static let temporaryFilePrefix = "incoming_"

    /// The directory holding the blob files (created on the first write).
    package let directory: URL

    /// The key blob files are encrypted with; nil when they are plaintext.
    package let encryptionKey: AES256Key?

    /// Paths of the temporary files of every writer in the process that is still open;
    /// compaction never removes them, whichever store object it runs on.
    static let liveTemporaryFiles = Locked<Set<String>>([])

    /// Makes a store over `directory`, encrypted with `encryptionKey` if one is given; nothing
    /// is created until a blob is written.
    package init(directory: URL, encryptionKey: AES256Key? = nil) {
        self.directory = directory.standardizedFileURL
        self.encryptionKey = encryptionKey
    }

    /// The location of the blob's file (which may not exist).
    package func url(for key: BlobKey) -> URL {
        directory.appendingPathComponent(key.fileName, isDirectory: false)
    }

    func path(for key: BlobKey) -> String { url(for: key).path }

    /// Whether the blob's file is in the store (its content is not checked).
    package func contains(_ key: BlobKey) -> Bool {
        (try? FileSystem.size(path(for: key))) != nil  // allowed: an unreadable file counts as absent; writing or importing it again then reports why
    }

    /// The length in bytes of the blob's content (in an encrypted store, less than its file's).
    ///
    /// - Throws: `BlobStoreError` `.notFound` when the blob is not in the store, `.corrupt`
    ///   when an encrypted blob's file cannot be decrypted.
    package func size(of key: BlobKey) throws(BlobStoreError) -> Int64 {
        if encryptionKey != nil {
            let reader = try makeReader(for: key)
            defer { reader.close() }
            return reader.length
        }
        let path = path(for: key)
        let size: Int64?
        do {
            size = try FileSystem.size(path)
        } catch {
            throw BlobStoreError(.io, "blob \(key): cannot read the size of \"\(path)\"", underlying: error)
        }
        guard let size else { throw missing(key) }
        return size
    }

    /// The blob's whole content, verified against its key (and `expectedLength` if given).
    ///
    /// For large blobs prefer ``makeReader(for:expectedLength:)``, which holds one chunk at a time.
    ///
    /// - Throws: `BlobStoreError` `.notFound` when the file is missing, `.corrupt` when its size
    ///   or SHA-1 digest does not match, `.io` when it cannot be read.
    package func data(for key: BlobKey, expectedLength: Int64? = nil) throws(BlobStoreError) -> Data {
        let reader = try makeReader(for: key, expectedLength: expectedLength)
        defer { reader.close() }
        return try reader.readToEnd()
    }

    /// Opens the blob for reading in chunks; the digest and length are checked at the end.
    ///
    /// - Throws: `BlobStoreError` `.notFound` when the file is missing, `.corrupt` when its size
    ///   differs from `expectedLength`.
    package func makeReader(for key: BlobKey, expectedLength: Int64? = nil) throws(BlobStoreError)
        -> BlobReader {
        try BlobReader(key: key, path: path(for: key), expectedLength: expectedLength, encryptionKey: encryptionKey)
    }

    /// Deletes the blob's file.
    ///
    /// - Returns: false when the blob was not in the store.
    @discardableResult
    package func delete(_ key: BlobKey) throws(BlobStoreError) -> Bool {
        let path = path(for: key)
        do {
            return try FileSystem.removeFile(path)
        } catch {
            throw BlobStoreError(.io, "blob \(key): cannot delete \"\(path)\"", underlying: error)
        }
    }

    func missing(_ key: BlobKey) -> BlobStoreError {
        BlobStoreError(.notFound, "blob \(key): its file \"\(key.fileName)\" is missing from the "
            + "blob store at \"\(directory.path)\"")
    }
}
