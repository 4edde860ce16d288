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
        guard chunkSize > 0 else {
            throw BlobStoreError(.invalidArgument, "chunk size \(chunkSize) is not positive")
        }
        let openedHere = stream.streamStatus == .notOpen
        if openedHere { stream.open() }
        defer { if openedHere { stream.close() } }
        if stream.streamStatus == .error {
            throw BlobStoreError(.io, "cannot open the input stream for a blob", underlying: stream.streamError)
        }
        let writer = try makeWriter()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 1)
        defer { buffer.deallocate() }
        let bytes = buffer.bindMemory(to: UInt8.self)
        while true {
            guard let base = bytes.baseAddress else { break }
            let count = stream.read(base, maxLength: chunkSize)
            if count < 0 {
                writer.abort()
                throw BlobStoreError(.io, "reading the input stream for a blob failed after "
                    + "\(writer.length) bytes; nothing was stored", underlying: stream.streamError)
            }
            if count == 0 { break }
            try writer.append(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
        }
        return try writer.finish(expecting: expectedKey, expectedLength: expectedLength)
    }
}
