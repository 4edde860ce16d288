import Crypto
import FoundationEssentials

/// Turns a blob's content into the ``EncryptedBlobFormat`` one block at a time, holding at most
/// one partial block: what a ``BlobWriter`` of an encrypted store writes through.
struct BlobEncryptor: Sendable {
    private let key: SymmetricKey
    /// Content not yet encrypted: less than one block.
    private var pending: [UInt8] = []
    private var nextBlock: Int64 = 0

    init(key: SymmetricKey) {
        self.key = key
        pending.reserveCapacity(EncryptedBlobFormat.blockSize)
    }

    /// Takes `bytes` and returns the ciphertext of every block they complete (maybe none).
    mutating func encrypt(_ bytes: UnsafeRawBufferPointer) throws -> Data {
        let blockSize = EncryptedBlobFormat.blockSize
        var output = Data()
        var rest = bytes[...]
        if !pending.isEmpty {
            let taken = min(blockSize - pending.count, rest.count)
            pending.append(contentsOf: rest.prefix(taken))
            rest = rest.dropFirst(taken)
            guard pending.count == blockSize else { return output }
            try pending.withUnsafeBytes { output.append(try encryptBlock($0, isFinal: false)) }
            pending.removeAll(keepingCapacity: true)
        }
        while rest.count >= blockSize {
            let block = UnsafeRawBufferPointer(rebasing: rest.prefix(blockSize))
            output.append(try encryptBlock(block, isFinal: false))
            rest = rest.dropFirst(blockSize)
        }
        pending.append(contentsOf: rest)
        return output
    }

    /// The end of the file: the final, padded block and the trailer.
    mutating func finish() throws -> Data {
        var output = try pending.withUnsafeBytes { try encryptBlock($0, isFinal: true) }
        pending.removeAll()
        var trailer = [UInt8](repeating: 0, count: EncryptedBlobFormat.trailerSize)
        var generator = SystemRandomNumberGenerator()
        for index in trailer.indices { trailer[index] = generator.next() }
        output.append(contentsOf: trailer)
        return output
    }

    private mutating func encryptBlock(_ block: UnsafeRawBufferPointer, isFinal: Bool) throws -> Data {
        defer { nextBlock += 1 }
        return try EncryptedBlobFormat.encrypt(block, block: nextBlock, isFinal: isFinal, key: key)
    }
}
