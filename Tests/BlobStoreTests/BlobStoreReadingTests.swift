import BlobStore
import CouchbaseLiteSwift   // makeInputStream (BlobInputStream needs Foundation; the BlobStore module does not link it)
import Foundation
import Testing
import TestSupport

@Suite(.ownThreads) struct BlobStoreReadingTests {
    @Test func readerGivesTheContentInChunks() throws {
        let directory = try TemporaryDirectory()
        let store = TestContent.store(in: directory)
        let content = Data(TestContent.bytes(count: 100_000, seed: 5))
        let key = try store.write(content)
        let reader = try store.makeReader(for: key, expectedLength: 100_000)
        var chunks: [Data] = []
        while let chunk = try reader.readChunk(maxLength: 30_000) { chunks.append(chunk) }
        #expect(chunks.map(\.count) == [30_000, 30_000, 30_000, 10_000])
        #expect(Data(chunks.joined()) == content)
        #expect(reader.offset == 100_000)
    }

    @Test func readerIntoABufferReturnsZeroAtTheEnd() throws {
        let directory = try TemporaryDirectory()
        let store = TestContent.store(in: directory)
        let key = try store.write(Data("attach1".utf8))
        let reader = try store.makeReader(for: key)
        var buffer = [UInt8](repeating: 0, count: 4)
        var content: [UInt8] = []
        while true {
            let count = try buffer.withUnsafeMutableBytes { try reader.read(into: $0) }
            if count == 0 { break }
            content += buffer[..<count]
        }
        #expect(content == Array("attach1".utf8))
        #expect(try buffer.withUnsafeMutableBytes { try reader.read(into: $0) } == 0)
    }

    @Test func readerOfTheEmptyBlobEndsAtOnce() throws {
        let directory = try TemporaryDirectory()
        let store = TestContent.store(in: directory)
        let key = try store.write(Data())
        let reader = try store.makeReader(for: key)
        #expect(try reader.readChunk() == nil)
        #expect(reader.length == 0)
    }

    @Test func readingAMissingBlobNamesItsDigest() throws {
        let directory = try TemporaryDirectory()
        let store = TestContent.store(in: directory)
        let key = BlobKey(hashing: Data("not stored".utf8))
        #expect { try store.data(for: key) } throws: { error in
            guard let error = error as? BlobStoreError else { return false }
            return error.code == .notFound && error.message.contains(key.string)
                && error.message.contains("missing")
        }
    }

    @Test func streamingAMissingBlobFailsWhenOpened() throws {
        let directory = try TemporaryDirectory()
        let store = TestContent.store(in: directory)
        let key = BlobKey(hashing: Data("not stored".utf8))
        #expect { try store.makeReader(for: key) } throws: { error in
            (error as? BlobStoreError)?.code == .notFound
        }
    }

    @Test func sizeOfAMissingBlobIsNotFound() throws {
        let directory = try TemporaryDirectory()
        let store = TestContent.store(in: directory)
        let key = BlobKey(hashing: Data("not stored".utf8))
        #expect(!store.contains(key))
        #expect { try store.size(of: key) } throws: { error in
            (error as? BlobStoreError)?.code == .notFound
        }
    }

    @Test func blobOfTheWrongLengthIsCorrupt() throws {
        let directory = try TemporaryDirectory()
        let store = TestContent.store(in: directory)
        let key = try store.write(Data("attach1".utf8))
        #expect { try store.data(for: key, expectedLength: 8) } throws: { error in
            guard let error = error as? BlobStoreError else { return false }
            return error.code == .corrupt && error.message.contains(key.string)
                && error.message.contains("7 bytes") && error.message.contains("length is 8")
        }
    }

    @Test func truncatedBlobIsCorrupt() throws {
        let directory = try TemporaryDirectory()
        let store = TestContent.store(in: directory)
        let key = try store.write(Data("attach1".utf8))
        try Data("attach".utf8).write(to: store.url(for: key), options: .atomic)
        #expect { try store.data(for: key) } throws: { error in
            guard let error = error as? BlobStoreError else { return false }
            return error.code == .corrupt && error.message.contains(key.string)
        }
    }

    @Test func blobWithChangedContentIsCorrupt() throws {
        let directory = try TemporaryDirectory()
        let store = TestContent.store(in: directory)
        let key = try store.write(Data("attach1".utf8))
        try Data("attach2".utf8).write(to: store.url(for: key), options: .atomic)
        #expect { try store.data(for: key, expectedLength: 7) } throws: { error in
            guard let error = error as? BlobStoreError else { return false }
            return error.code == .corrupt && error.message.contains(key.string)
                && error.message.contains("sha1-iTebnQazmdAhRBH64y9E6JqwSoc=")
        }
    }

    @Test func streamingCorruptBlobFailsOnTheLastRead() throws {
        let directory = try TemporaryDirectory()
        let store = TestContent.store(in: directory)
        var content = TestContent.bytes(count: 50_000, seed: 6)
        let key = try store.write(content)
        content[49_999] ^= 0xFF
        try Data(content).write(to: store.url(for: key), options: .atomic)
        let reader = try store.makeReader(for: key, expectedLength: 50_000)
        #expect(try reader.readChunk(maxLength: 50_000)?.count == 50_000)
        #expect { try reader.readChunk() } throws: { error in
            (error as? BlobStoreError)?.code == .corrupt
        }
    }

    /// Reads a Foundation stream to its end; nil when a read returns -1.
    private func readAll(_ stream: InputStream) -> Data? {
        stream.open()
        defer { stream.close() }
        var content = Data()
        var buffer = [UInt8](repeating: 0, count: 1000)
        while true {
            let count = stream.read(&buffer, maxLength: buffer.count)
            if count < 0 { return nil }
            if count == 0 { return content }
            content.append(contentsOf: buffer[..<count])
        }
    }

    @Test func inputStreamGivesTheContent() throws {
        let directory = try TemporaryDirectory()
        let store = TestContent.store(in: directory)
        let content = Data(TestContent.bytes(count: 12_345, seed: 8))
        let key = try store.write(content)
        let stream = try store.makeInputStream(for: key)
        #expect(readAll(stream) == content)
        #expect(stream.streamStatus == .closed)
    }

    @Test func inputStreamOfACorruptBlobEndsInAnError() throws {
        let directory = try TemporaryDirectory()
        let store = TestContent.store(in: directory)
        let key = try store.write(Data("attach1".utf8))
        try Data("attach2".utf8).write(to: store.url(for: key), options: .atomic)
        let stream = try store.makeInputStream(for: key)
        #expect(readAll(stream) == nil)
        #expect((stream.streamError as? BlobStoreError)?.code == .corrupt)
    }

    @Test func readAfterCloseIsRejected() throws {
        let directory = try TemporaryDirectory()
        let store = TestContent.store(in: directory)
        let key = try store.write(Data("attach1".utf8))
        let reader = try store.makeReader(for: key)
        reader.close()
        #expect { try reader.readChunk() } throws: { error in
            (error as? BlobStoreError)?.code == .closed
        }
    }

    @Test func deleteRemovesTheBlob() throws {
        let directory = try TemporaryDirectory()
        let store = TestContent.store(in: directory)
        let key = try store.write(Data("attach1".utf8))
        #expect(try store.delete(key))
        #expect(!store.contains(key))
        #expect(try store.delete(key) == false)
    }
}
