import BlobStore
import Crypto
import Foundation
import LiteSupport
import TestSupport
import Testing

/// Encrypted blob stores: Couchbase Lite's encrypted blob format (4 KB blocks, AES-256-CBC, IV
/// = the block number, PKCS #7 on the last block, a 32-byte trailer), streamed both ways.
@Suite(.ownThreads) struct BlobStoreEncryptionTests {
    /// 00 01 02 … 1f: the key of the known-answer vectors.
    static let key = AES256Key(bytes: Array(0..<32))
    static let otherKey = AES256Key(bytes: Array(repeating: 7, count: 32))

    static func store(in directory: TemporaryDirectory, key: AES256Key? = key) -> BlobStore {
        BlobStore(directory: directory.appending("Attachments"), encryptionKey: key)
    }

    /// The file size the format gives `length` bytes, computed here from its description.
    static func expectedFileSize(_ length: Int) -> Int {
        let fullBlocks = length / 4096
        let finalBlockCiphertext = (length % 4096 / 16 + 1) * 16
        return fullBlocks * 4096 + finalBlockCiphertext + 32
    }

    /// Sizes on and around every boundary of the format: AES blocks, file blocks, several blocks.
    static let sizes = [0, 1, 15, 16, 17, 4079, 4080, 4095, 4096, 4097, 8191, 8192, 8193, 3 * 4096 + 100,
                        16 * 4096, 16 * 4096 + 5, 17 * 4096, 100_003]

    @Test(arguments: sizes) func contentRoundTripsThroughOneWrite(size: Int) throws {
        let directory = try TemporaryDirectory()
        let store = Self.store(in: directory)
        let content = TestContent.bytes(count: size, seed: UInt64(size) + 1)
        let key = try store.write(content)
        #expect(key == (try TestContent.referenceKey(content)))
        #expect(try store.data(for: key) == Data(content))
        #expect(try store.size(of: key) == Int64(size))
        let fileSize = try FileManager.default.attributesOfItem(atPath: store.url(for: key).path)[.size] as? Int
        #expect(fileSize == Self.expectedFileSize(size))
    }

    @Test(arguments: sizes) func contentRoundTripsInChunksThatStraddleBlocks(size: Int) throws {
        let directory = try TemporaryDirectory()
        let store = Self.store(in: directory)
        let content = TestContent.bytes(count: size, seed: UInt64(size) + 2)
        let writer = try store.makeWriter()
        var offset = 0
        var chunkSize = 1
        while offset < content.count {
            let end = min(content.count, offset + chunkSize)
            try writer.append(content[offset..<end])
            offset = end
            chunkSize = chunkSize * 3 + 1   // 1, 4, 13, 40, …: every alignment against 16 and 4096
        }
        let key = try writer.finish(expectedLength: Int64(size))
        #expect(key == (try TestContent.referenceKey(content)))

        let reader = try store.makeReader(for: key, expectedLength: Int64(size))
        #expect(reader.length == Int64(size))
        var read = Data()
        var maxLength = 1
        while let chunk = try reader.readChunk(maxLength: maxLength) {
            read.append(chunk)
            maxLength = maxLength % 5000 * 2 + 1
        }
        #expect(read == Data(content))
    }

    @Test func writingTheSameContentTwiceKeepsOneFile() throws {
        let directory = try TemporaryDirectory()
        let store = Self.store(in: directory)
        let content = TestContent.bytes(count: 5000)
        let first = try store.write(content)
        let second = try store.write(content)
        #expect(first == second)
        #expect(try TestContent.fileNames(in: store) == [first.fileName])
        #expect(try store.data(for: first) == Data(content))
    }

    @Test(arguments: [0, 1, 4095, 4096, 4097, 20_000])
    func aWrongKeyIsAnErrorNotGarbage(size: Int) throws {
        let directory = try TemporaryDirectory()
        let key = try Self.store(in: directory).write(TestContent.bytes(count: size, seed: 5))
        let wrong = Self.store(in: directory, key: Self.otherKey)
        let error = #expect(throws: BlobStoreError.self) { try wrong.data(for: key) }
        #expect(error?.code == .corrupt)
        // A reader does not hand out content it cannot vouch for: it fails by the end at the latest.
        #expect(throws: BlobStoreError.self) {
            let reader = try wrong.makeReader(for: key)
            while try reader.readChunk() != nil {}
        }
    }

    @Test func aPlaintextStoreCannotReadAnEncryptedBlobNorTheReverse() throws {
        let directory = try TemporaryDirectory()
        let content = TestContent.bytes(count: 10_000, seed: 8)
        let encryptedKey = try Self.store(in: directory).write(content)
        #expect(throws: BlobStoreError.self) { try Self.store(in: directory, key: nil).data(for: encryptedKey) }

        let plainDirectory = try TemporaryDirectory()
        let plainKey = try Self.store(in: plainDirectory, key: nil).write(content)
        let error = #expect(throws: BlobStoreError.self) { try Self.store(in: plainDirectory).data(for: plainKey) }
        #expect(error?.code == .corrupt)
    }

    @Test func noPlaintextReachesTheFile() throws {
        let directory = try TemporaryDirectory()
        let store = Self.store(in: directory)
        let marker = Array("confidential-attachment-text ".utf8)
        var content: [UInt8] = []
        while content.count < 50_000 { content += marker }
        let key = try store.write(content)
        let file = try [UInt8](Data(contentsOf: store.url(for: key)))
        let markerFound = Self.contains(file, Array(marker.prefix(12)))
        #expect(!markerFound)
        // Equal plaintext blocks do not give equal ciphertext blocks (each block has its own IV).
        #expect(Array(file[0..<4096]) != Array(file[4096..<8192]))
        // Nor does any 16-byte run of the content appear, at any offset.
        let runs = Set(stride(from: 0, to: 4096, by: 1).map { Array(content[$0..<$0 + 16]) })
        let runFound = stride(from: 0, to: file.count - 16, by: 1).contains { runs.contains(Array(file[$0..<$0 + 16])) }
        #expect(!runFound)
    }

    @Test func theTrailerIsRandom() throws {
        let directory = try TemporaryDirectory()
        let content = TestContent.bytes(count: 100)
        let first = Self.store(in: directory)
        let key = try first.write(content)
        let firstFile = try Data(contentsOf: first.url(for: key))
        let other = try TemporaryDirectory()
        let secondStore = Self.store(in: other)
        try secondStore.write(content)
        let secondFile = try Data(contentsOf: secondStore.url(for: key))
        #expect(firstFile.count == secondFile.count)
        #expect(firstFile.dropLast(32) == secondFile.dropLast(32))   // deterministic, as in LiteCore
        #expect(firstFile.suffix(32) != secondFile.suffix(32))
    }

    /// Vectors computed independently (Python `cryptography`, AES-256-CBC per 4096-byte block,
    /// IV = 8 zero bytes + big-endian block number, PKCS #7 on the final block) with the key
    /// 00 01 02 … 1f.
    @Test func fileMatchesAnIndependentlyComputedVector() throws {
        let directory = try TemporaryDirectory()
        let store = Self.store(in: directory)

        let emptyKey = try store.write(Data())
        let empty = try Data(contentsOf: store.url(for: emptyKey))
        #expect(empty.count == 48)
        #expect(empty.prefix(16).hexString == "9f3b7504926f8bd36e3118e903a4cd4a")

        let content = (0..<4116).map { UInt8(($0 * 7 + 3) % 251) }
        let key = try store.write(content)
        let file = try Data(contentsOf: store.url(for: key))
        let ciphertext = file.dropLast(32)
        #expect(ciphertext.count == 4128)
        #expect(Data(SHA256.hash(data: ciphertext)).hexString
                == "96ab587102e65caf405448b6cea119310cb1dfc8254dcc7c26c632889a337c9e")
        #expect(ciphertext.prefix(16).hexString == "ae5bf9ddaad53f23deb4efae9db72462")
        #expect(ciphertext.suffix(16).hexString == "c7b5281708620a58170a683a1960da1e")
    }

    @Test func transferBetweenStoresWithDifferentKeysReencrypts() throws {
        let directory = try TemporaryDirectory()
        let content = TestContent.bytes(count: 9000, seed: 11)
        let source = Self.store(in: directory)
        let key = try source.write(content)
        for destinationKey in [nil, Self.otherKey, Self.key] as [AES256Key?] {
            let target = try TemporaryDirectory()
            let destination = Self.store(in: target, key: destinationKey)
            try source.transfer(key, to: destination)
            #expect(try destination.data(for: key) == Data(content))
            #expect(try source.data(for: key) == Data(content))
        }
    }

    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard needle.count <= haystack.count else { return false }
        return (0...(haystack.count - needle.count)).contains { haystack[$0..<$0 + needle.count].elementsEqual(needle) }
    }
}

private extension DataProtocol {
    var hexString: String { map { String(format: "%02x", $0) }.joined() }
}
