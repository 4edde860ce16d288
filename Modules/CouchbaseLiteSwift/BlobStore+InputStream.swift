import BlobStore
import Foundation

// Foundation's streams, for the public API's blobs: here rather than in BlobStore, which the
// tools link without Foundation (docs/decisions.md, Tools-18).
extension BlobStore {
    /// Opens the blob as a Foundation `InputStream`; see ``BlobInputStream``.
    ///
    /// - Throws: as ``makeReader(for:expectedLength:)``.
    package func makeInputStream(for key: BlobKey, expectedLength: Int64? = nil) throws(BlobStoreError)
        -> BlobInputStream {
        BlobInputStream(try makeReader(for: key, expectedLength: expectedLength))
    }

    /// Stores everything `stream` gives, read in chunks of `chunkSize` bytes.
    ///
    /// A stream that is not open yet is opened, and closed again at the end; an open stream is
    /// read from where it is and left open.
    ///
    /// - Throws: `BlobStoreError` `.io` when the stream reports an error (nothing is stored).
    @discardableResult
    package func write(from stream: InputStream, chunkSize: Int = defaultChunkSize,
                       expecting expectedKey: BlobKey? = nil, expectedLength: Int64? = nil)
        throws(BlobStoreError) -> BlobKey {
        try Self.checkChunkSize(chunkSize)
        let openedHere = stream.streamStatus == .notOpen
        if openedHere { stream.open() }
        defer { if openedHere { stream.close() } }
        if stream.streamStatus == .error {
            throw BlobStoreError(.io, "cannot open the input stream for a blob", underlying: stream.streamError)
        }
        return try write(chunkSize: chunkSize, expecting: expectedKey, expectedLength: expectedLength) {
            buffer, bytesSoFar throws(BlobStoreError) in
            guard let base = buffer.bindMemory(to: UInt8.self).baseAddress else { return 0 }
            let count = stream.read(base, maxLength: buffer.count)
            guard count >= 0 else {
                throw BlobStoreError(.io, "reading the input stream for a blob failed after "
                    + "\(bytesSoFar) bytes; nothing was stored", underlying: stream.streamError)
            }
            return count
        }
    }
}
