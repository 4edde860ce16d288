import BLIP
import BlobStore

/// A blob served to the peer (`getAttachment`) read from its file piece by piece as the reply's
/// frames go out, so a blob of any size costs one piece of memory.
///
/// The reader checks the digest when it reaches the end; a file found corrupt then closes the
/// connection (a reply cannot be abandoned half-sent), so the peer never stores it.
final class BlobBodySource: BLIPBodySource, Sendable {
    private let reader: BlobReader

    init(reader: BlobReader) {
        self.reader = reader
    }

    func read(maxLength: Int) throws -> [UInt8] {
        var piece = [UInt8](repeating: 0, count: maxLength)
        var filled = 0
        // A short piece means the end to the connection: fill it unless the file ends (the
        // read that finds the end is the one that checks the digest).
        while filled < maxLength {
            let count = try piece.withUnsafeMutableBytes { buffer in
                Result { () throws(BlobStoreError) in
                    try reader.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]))
                }
            }.get()
            if count == 0 { break }
            filled += count
        }
        if filled < maxLength { piece.removeSubrange(filled...) }
        return piece
    }
}
