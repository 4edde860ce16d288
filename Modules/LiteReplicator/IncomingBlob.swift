import BlobStore

/// A blob arriving in a `getAttachment` reply: each piece of the body goes into the blob
/// writer as its frame is read, so the blob is never held whole.
final class IncomingBlob: @unchecked Sendable {
    // @unchecked: `append` runs on the connection's reader only, one piece at a time; the
    // writer is finished or aborted after the reply (or its failure) has been delivered.
    let writer: BlobWriter
    private let key: BlobKey
    private let expectedLength: Int64?

    init(writer: BlobWriter, key: BlobKey, expectedLength: Int64?) {
        self.writer = writer
        self.key = key
        self.expectedLength = expectedLength
    }

    /// Writes one piece of the body.
    ///
    /// - Throws: `ReplicationError` (HTTP 400) as soon as the body runs past the announced
    ///   length, so a bad peer cannot fill the disk; the writer's I/O errors.
    func append(_ bytes: [UInt8]) throws {
        if let expectedLength, writer.length + Int64(bytes.count) > expectedLength {
            throw ReplicationError(.http, 400, "blob \(key.string) from the peer is longer than its \(expectedLength) bytes; "
                                   + "nothing was stored")
        }
        try writer.append(bytes)
    }
}
