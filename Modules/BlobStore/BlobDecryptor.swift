import Crypto
import FoundationEssentials

/// Reads a blob file in the ``EncryptedBlobFormat`` back as its content, one block at a time:
/// what a ``BlobReader`` of an encrypted store reads through.
///
/// The content's length is known once the final block is decrypted, which ``init(descriptor:fileSize:key:)``
/// does; its padding is also the first check of the key.
struct BlobDecryptor: Sendable {
    /// Why a file cannot be read as encrypted content.
    enum Failure: Error {
        /// No file in the format has this size (not encrypted, or truncated).
        case wrongSize
        /// A block did not decrypt: wrong key or damaged file.
        case undecryptable
        /// The file ended before a block did (it changed while being read).
        case truncated
        /// The file could not be read.
        case io(POSIXFailure)
    }

    /// The number of content bytes the file holds.
    let contentLength: Int64

    private let key: SymmetricKey
    private let cipherLength: Int64
    private let finalBlock: Int64
    private var nextBlock: Int64 = 0
    /// The decrypted block being given out, and how much of it has been.
    private var plaintext = Data()
    private var plaintextOffset = 0
    /// Ciphertext read ahead: blocks `batchFirst ..< batchFirst + batchCount`.
    private var batch = Data()
    private var batchFirst: Int64 = 0
    private var batchCount: Int64 = 0

    init(descriptor: FileDescriptor, fileSize: Int64, key: SymmetricKey) throws(Failure) {
        guard let (cipherLength, finalBlock) = EncryptedBlobFormat.layout(fileSize: fileSize) else {
            throw .wrongSize
        }
        self.key = key
        self.cipherLength = cipherLength
        self.finalBlock = finalBlock
        let last = try Self.decryptBlock(finalBlock, from: descriptor, key: key, cipherLength: cipherLength,
                                         finalBlock: finalBlock)
        contentLength = finalBlock * Int64(EncryptedBlobFormat.blockSize) + Int64(last.count)
    }

    /// Ciphertext blocks fetched with one read: a 64 KB chunk costs one system call, as it does
    /// from a plaintext store, instead of sixteen.
    private static let blocksPerRead: Int64 = 16

    /// Fills `buffer` with the next content bytes, across blocks; returns how many (0 at the end).
    mutating func read(into buffer: UnsafeMutableRawBufferPointer, from descriptor: FileDescriptor)
        throws(Failure) -> Int {
        var filled = 0
        while filled < buffer.count {
            if plaintextOffset == plaintext.count {
                guard nextBlock <= finalBlock else { break }
                try decryptNextBlock(from: descriptor)
                // An empty final block: the content ended with the previous one.
                if plaintext.isEmpty { break }
            }
            let count = min(buffer.count - filled, plaintext.count - plaintextOffset)
            plaintext.withUnsafeBytes { source in
                UnsafeMutableRawBufferPointer(rebasing: buffer[filled..<filled + count])
                    .copyMemory(from: UnsafeRawBufferPointer(rebasing: source[plaintextOffset..<plaintextOffset + count]))
            }
            plaintextOffset += count
            filled += count
        }
        return filled
    }

    /// Decrypts block `nextBlock` into `plaintext`, first reading the next ``blocksPerRead``
    /// blocks' ciphertext when it is not in `batch`.
    private mutating func decryptNextBlock(from descriptor: FileDescriptor) throws(Failure) {
        let blockSize = Int64(EncryptedBlobFormat.blockSize)
        if nextBlock >= batchFirst + batchCount {
            let last = min(finalBlock, nextBlock + Self.blocksPerRead - 1)
            let start = nextBlock * blockSize
            let size = Int((last == finalBlock ? cipherLength : (last + 1) * blockSize) - start)
            if batch.count != size { batch.count = size }
            let read = batch.withUnsafeMutableBytes { bytes in
                Result { () throws(POSIXFailure) in try descriptor.read(into: bytes, at: start) }
            }
            let count: Int
            switch read {
            case .success(let value): count = value
            case .failure(let failure): throw .io(failure)
            }
            guard count == size else { throw .truncated }
            (batchFirst, batchCount) = (nextBlock, last - nextBlock + 1)
        }
        let offset = Int((nextBlock - batchFirst) * blockSize)
        let end = nextBlock == finalBlock ? batch.count : offset + Int(blockSize)
        do {
            // A slice of `batch` shares its storage: the cipher reads the bytes where they are.
            plaintext = try EncryptedBlobFormat.decrypt(batch[offset..<end], block: nextBlock,
                                                        isFinal: nextBlock == finalBlock, key: key)
        } catch {
            throw .undecryptable
        }
        plaintextOffset = 0
        nextBlock += 1
    }

    private static func decryptBlock(_ index: Int64, from descriptor: FileDescriptor, key: SymmetricKey,
                                     cipherLength: Int64, finalBlock: Int64) throws(Failure) -> Data {
        let blockSize = Int64(EncryptedBlobFormat.blockSize)
        let offset = index * blockSize
        let isFinal = index == finalBlock
        let size = Int(isFinal ? cipherLength - offset : blockSize)
        let ciphertext = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 1)
        defer { ciphertext.deallocate() }
        let count: Int
        do {
            count = try descriptor.read(into: ciphertext, at: offset)
        } catch {
            throw .io(error)
        }
        guard count == size else { throw .truncated }
        do {
            return try EncryptedBlobFormat.decrypt(UnsafeRawBufferPointer(ciphertext), block: index,
                                                   isFinal: isFinal, key: key)
        } catch {
            throw .undecryptable
        }
    }
}
