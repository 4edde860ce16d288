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
        try Self.checkChunkSize(chunkSize)
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
        return try write(chunkSize: chunkSize, expecting: expectedKey, expectedLength: expectedLength) {
            buffer, _ throws(BlobStoreError) in
            do {
                return try source.read(into: buffer)
            } catch {
                throw BlobStoreError(.io, "cannot read \"\(path)\" to store it as a blob", underlying: error)
            }
        }
    }

    /// Throws `.invalidArgument` unless `chunkSize` is positive.
    package static func checkChunkSize(_ chunkSize: Int) throws(BlobStoreError) {
        guard chunkSize > 0 else {
            throw BlobStoreError(.invalidArgument, "chunk size \(chunkSize) is not positive")
        }
    }

    /// Stores what `read` gives, in chunks of `chunkSize` bytes: each call fills the start of
    /// the buffer it is handed and returns how many bytes it put there (0 at the end); it is
    /// also told how many bytes came before. When it throws, nothing is stored.
    package func write(chunkSize: Int, expecting expectedKey: BlobKey?, expectedLength: Int64?,
                       from read: (UnsafeMutableRawBufferPointer, _ bytesSoFar: Int64) throws(BlobStoreError) -> Int)
        throws(BlobStoreError) -> BlobKey {
        let writer = try makeWriter()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 1)
        defer { buffer.deallocate() }
        while true {
            let count: Int
            do {
                count = try read(buffer, writer.length)
            } catch {
                writer.abort()
                throw error
            }
            if count == 0 { break }
            try writer.append(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
        }
        return try writer.finish(expecting: expectedKey, expectedLength: expectedLength)
    }
}
