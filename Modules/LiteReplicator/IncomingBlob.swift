import BlobStore
import LiteSupport

/// A blob arriving in a `getAttachment` reply: each piece of the body goes into the blob
/// writer as its frame is read, so the blob is never held whole.
///
/// Pieces come from the connection's reader; the fetching task finishes or aborts the blob.
/// The two can overlap when the fetch is cancelled or the connection closes while a piece is
/// being written, so the writer is only touched under a lock, and a piece that comes after
/// the end is refused.
final class IncomingBlob: Sendable {
    private let writer: Locked<BlobWriter?>
    private let key: BlobKey
    private let expectedLength: Int64?
    /// The most bytes accepted when no length was declared (a declared length above it is
    /// refused before the blob is asked for).
    private let maximumLength: Int64

    init(writer: BlobWriter, key: BlobKey, expectedLength: Int64?, maximumLength: Int64) {
        self.writer = Locked(writer)
        self.key = key
        self.expectedLength = expectedLength
        self.maximumLength = maximumLength
    }

    /// Writes one piece of the body.
    ///
    /// - Throws: `ReplicationError` as soon as the body runs past the announced length (HTTP
    ///   400) or, with none announced, past the most accepted from a peer (HTTP 413), so a bad
    ///   peer cannot fill the disk; the writer's I/O errors; an error once the
    ///   blob was finished or aborted.
    func append(_ bytes: [UInt8]) throws {
        try writer.withLock { writer in
            guard let writer else {
                throw ReplicationError(.database, 10, "blob \(key.string) is no longer being received")
            }
            let (total, overflow) = writer.length.addingReportingOverflow(Int64(bytes.count))
            if let expectedLength, overflow || total > expectedLength {
                throw ReplicationError(.http, 400, "blob \(key.string) from the peer is longer than its "
                                       + "\(expectedLength) bytes; nothing was stored")
            }
            if overflow || total > maximumLength {
                throw ReplicationError(.http, 413, "blob \(key.string) from the peer declares no length and runs past the "
                                       + "\(maximumLength) bytes accepted from a peer; nothing was stored")
            }
            try writer.append(bytes)
        }
    }

    /// Removes what was written; later pieces are refused.
    func abort() {
        writer.withLock { writer in
            writer?.abort()
            writer = nil
        }
    }

    /// Takes the writer to finish the blob; later pieces are refused.
    func takeWriter() throws -> BlobWriter {
        guard let taken = writer.withLock({ writer -> BlobWriter? in
            defer { writer = nil }
            return writer
        }) else {
            throw ReplicationError(.database, 10, "blob \(key.string) is no longer being received")
        }
        return taken
    }
}
