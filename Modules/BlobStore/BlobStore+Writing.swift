import FoundationEssentials

extension BlobStore {
    /// Starts writing a new blob in chunks; see ``BlobWriter``.
    ///
    /// - Throws: `BlobStoreError` `.io` when the directory or the temporary file cannot be created.
    package func makeWriter() throws(BlobStoreError) -> BlobWriter {
        try BlobWriter(store: self)
    }

    /// Stores `content` as a blob.
    ///
    /// - Returns: the blob's key; storing content that is already there keeps one copy.
    @discardableResult
    package func write(_ content: some DataProtocol) throws(BlobStoreError) -> BlobKey {
        let writer = try makeWriter()
        try writer.append(content)
        return try writer.finish()
    }

    /// Stores the content of the file at `fileURL`, read in chunks of `chunkSize` bytes.
    ///
    /// - Throws: `BlobStoreError` `.notFound` when there is no such file, `.io` when it cannot
    ///   be read, `.contentMismatch` when it does not match `expecting` or `expectedLength`.
    @discardableResult
    package func write(contentsOf fileURL: URL, chunkSize: Int = defaultChunkSize,
                       expecting expectedKey: BlobKey? = nil, expectedLength: Int64? = nil)
        throws(BlobStoreError) -> BlobKey {
        guard chunkSize > 0 else {
            throw BlobStoreError(.invalidArgument, "chunk size \(chunkSize) is not positive")
        }
        let path = fileURL.path
        let source: FileDescriptor
        do {
            source = try FileDescriptor.openForReading(path)
        } catch where error.isNotFound {
            throw BlobStoreError(.notFound, "cannot store \"\(path)\" as a blob: there is no such file",
                                 underlying: error)
        } catch {
            throw BlobStoreError(.io, "cannot open \"\(path)\" to store it as a blob", underlying: error)
        }
        defer { source.close() }
        let writer = try makeWriter()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 1)
        defer { buffer.deallocate() }
        while true {
            let count: Int
            do {
                count = try source.read(into: buffer)
            } catch {
                writer.abort()
                throw BlobStoreError(.io, "cannot read \"\(path)\" to store it as a blob", underlying: error)
            }
            if count == 0 { break }
            try writer.append(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
        }
        return try writer.finish(expecting: expectedKey, expectedLength: expectedLength)
    }
}
