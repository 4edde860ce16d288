import BlobStore
import Foundation

/// A Foundation `InputStream` over a ``BlobReader``, for APIs that hand out a blob's content
/// as a stream (the 2.x `Blob.contentStream`).
///
/// The content is checked as it is read: when the file turns out corrupt, the read that reaches
/// the end returns -1 and ``streamError`` holds the `BlobStoreError`, so a caller that reads to
/// the end and checks for -1, as `InputStream` requires, never takes bad content for good.
///
/// ```swift
/// let stream = BlobInputStream(try store.makeReader(for: key))
/// stream.open()
/// defer { stream.close() }
/// ```
package final class BlobInputStream: InputStream {
    private let reader: BlobReader
    private var status: Stream.Status = .notOpen
    private var error: BlobStoreError?

    /// Makes a stream that reads through `reader` (which the stream then owns).
    package init(_ reader: BlobReader) {
        self.reader = reader
        super.init(data: Data())
    }

    /// The blob being read.
    package var key: BlobKey { reader.key }

    /// Opens the stream.
    package override func open() {
        if status == .notOpen { status = .open }
    }

    /// Closes the stream and its file.
    package override func close() {
        reader.close()
        status = .closed
    }

    /// The stream's state: `.atEnd` once all content was read and verified, `.error` on a failure.
    package override var streamStatus: Stream.Status { status }

    /// The failure that stopped the stream, a `BlobStoreError`.
    package override var streamError: (any Error)? { error }

    /// Whether a read may return more bytes.
    package override var hasBytesAvailable: Bool { status == .open }

    /// Reads up to `length` bytes; returns 0 at the verified end and -1 on failure.
    package override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength length: Int) -> Int {
        guard status == .open else { return status == .atEnd ? 0 : -1 }
        guard length > 0 else { return 0 }
        do {
            let count = try reader.read(into: UnsafeMutableRawBufferPointer(start: buffer, count: length))
            if count == 0 { status = .atEnd }
            return count
        } catch {
            self.error = error
            status = .error
            return -1
        }
    }

    /// Direct access to an internal buffer is not offered.
    package override func getBuffer(_ buffer: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>,
                                    length: UnsafeMutablePointer<Int>) -> Bool {
        false
    }
}
