import BlobStore
import CouchbaseLiteSwift
import Foundation
import TestSupport
import Testing

@Suite(.ownThreads) struct BlobStoreWritingTests {
    @Test func dataRoundTrips() throws {
        let directory = try TemporaryDirectory()
        let store = TestContent.store(in: directory)
        let content = TestContent.bytes(count: 10_000)
        let key = try store.write(content)
        #expect(try store.data(for: key) == Data(content))
    }

    @Test func keyIsTheIndependentSHA1OfTheContent() throws {
        let directory = try TemporaryDirectory()
        let store = TestContent.store(in: directory)
        let content = TestContent.bytes(count: 300_001, seed: 9)
        let key = try store.write(content)
        #expect(key == (try TestContent.referenceKey(content)))
        #expect(try store.size(of: key) == 300_001)
    }

    @Test func fileIsNamedAsCouchbaseLiteNamesIt() throws {
        let directory = try TemporaryDirectory()
        let store = TestContent.store(in: directory)
        try store.write(Data("attach1".utf8))
        #expect(try TestContent.fileNames(in: store) == ["P1i5kI_sosq745_9BDR7kEghKps=.blob"])
    }

    @Test func storedBlobFilesAreReadOnly() throws {
        let directory = try TemporaryDirectory()
        let store = TestContent.store(in: directory)
        let key = try store.write(Data("immutable".utf8))
        let attributes = try FileManager.default.attributesOfItem(atPath: store.url(for: key).path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o444)
    }

    @Test func inputStreamRoundTrips() throws {
        let directory = try TemporaryDirectory()
        let store = TestContent.store(in: directory)
        let content = Data(TestContent.bytes(count: 200_000, seed: 3))
        let key = try store.write(from: InputStream(data: content), chunkSize: 4096)
        #expect(key == (try TestContent.referenceKey(Array(content))))
        #expect(try store.data(for: key) == content)
    }

    @Test func inputStreamOpenedByTheCallerIsLeftOpen() throws {
        let directory = try TemporaryDirectory()
        let store = TestContent.store(in: directory)
        let stream = InputStream(data: Data("abc".utf8))
        stream.open()
        defer { stream.close() }
        try store.write(from: stream)
        #expect(stream.streamStatus != .closed)
    }

    @Test func fileURLRoundTrips() throws {
        let directory = try TemporaryDirectory()
        let store = TestContent.store(in: directory)
        let content = Data(TestContent.bytes(count: 150_000, seed: 4))
        let source = directory.appending("source.bin")
        try content.write(to: source)
        let key = try store.write(contentsOf: source, chunkSize: 1000)
        #expect(key == (try TestContent.referenceKey(Array(content))))
        #expect(try store.data(for: key) == content)
    }

    @Test func missingSourceFileIsReportedAsNotFound() throws {
        let directory = try TemporaryDirectory()
        let store = TestContent.store(in: directory)
        let source = directory.appending("nothing-here.bin")
        #expect { try store.write(contentsOf: source) } throws: { error in
            guard let error = error as? BlobStoreError else { return false }
            return error.code == .notFound && error.message.contains("nothing-here.bin")
        }
    }

    @Test func emptyBlobRoundTrips() throws {
        let directory = try TemporaryDirectory()
        let store = TestContent.store(in: directory)
        let key = try store.write(Data())
        #expect(key.string == "sha1-2jmj7l5rSw0yVb/vlWAYkK/YBwk=")  // SHA-1 of nothing
        #expect(try store.data(for: key, expectedLength: 0) == Data())
        #expect(try store.size(of: key) == 0)
    }

    @Test func emptyStreamGivesTheEmptyBlob() throws {
        let directory = try TemporaryDirectory()
        let store = TestContent.store(in: directory)
        let key = try store.write(from: InputStream(data: Data()))
        #expect(key == BlobKey(hashing: Data()))
        #expect(store.contains(key))
    }

    @Test func sameContentTwiceIsStoredOnce() throws {
        let directory = try TemporaryDirectory()
        let store = TestContent.store(in: directory)
        let content = TestContent.bytes(count: 5000)
        let first = try store.write(content)
        let second = try store.write(from: InputStream(data: Data(content)))
        #expect(first == second)
        #expect(try TestContent.fileNames(in: store) == [first.fileName])
    }

    @Test func directoryIsCreatedOnTheFirstWrite() throws {
        let directory = try TemporaryDirectory()
        let store = TestContent.store(in: directory)
        #expect(try store.allKeys().isEmpty)
        #expect(!FileManager.default.fileExists(atPath: store.directory.path))
        try store.write(Data("x".utf8))
        #expect(FileManager.default.fileExists(atPath: store.directory.path))
    }

    @Test func writerWritesToAnIncomingFileUntilFinished() throws {
        let directory = try TemporaryDirectory()
        let store = TestContent.store(in: directory)
        let writer = try store.makeWriter()
        try writer.append(Data("part one, ".utf8))
        let names = try TestContent.fileNames(in: store)
        #expect(names.count == 1)
        #expect(names.first?.hasPrefix("incoming_") == true)
        try writer.append(Data("part two".utf8))
        let key = try writer.finish()
        #expect(try TestContent.fileNames(in: store) == [key.fileName])
        #expect(try store.data(for: key) == Data("part one, part two".utf8))
    }

    @Test func abortedWriterLeavesNoFile() throws {
        let directory = try TemporaryDirectory()
        let store = TestContent.store(in: directory)
        let writer = try store.makeWriter()
        try writer.append(Data("never stored".utf8))
        writer.abort()
        #expect(try TestContent.fileNames(in: store).isEmpty)
    }

    @Test func releasedUnfinishedWriterRemovesItsFile() throws {
        let directory = try TemporaryDirectory()
        let store = TestContent.store(in: directory)
        do {
            let writer = try store.makeWriter()
            try writer.append(Data("dropped".utf8))
            #expect(try TestContent.fileNames(in: store).count == 1)
        }
        #expect(try TestContent.fileNames(in: store).isEmpty)
    }

    @Test func appendAfterFinishIsRejected() throws {
        let directory = try TemporaryDirectory()
        let store = TestContent.store(in: directory)
        let writer = try store.makeWriter()
        try writer.finish()
        #expect { try writer.append(Data("late".utf8)) } throws: { error in
            (error as? BlobStoreError)?.code == .closed
        }
    }

    @Test func finishWithTheWrongExpectedKeyStoresNothing() throws {
        let directory = try TemporaryDirectory()
        let store = TestContent.store(in: directory)
        let expected = BlobKey(hashing: Data("what the document says".utf8))
        let writer = try store.makeWriter()
        try writer.append(Data("what arrived".utf8))
        #expect { try writer.finish(expecting: expected) } throws: { error in
            guard let error = error as? BlobStoreError else { return false }
            return error.code == .contentMismatch && error.message.contains(expected.string)
        }
        #expect(try TestContent.fileNames(in: store).isEmpty)
    }

    @Test func finishWithTheWrongExpectedLengthStoresNothing() throws {
        let directory = try TemporaryDirectory()
        let store = TestContent.store(in: directory)
        #expect {
            try store.write(from: InputStream(data: Data("12345".utf8)), expectedLength: 6)
        } throws: { error in
            (error as? BlobStoreError)?.code == .contentMismatch
        }
        #expect(try TestContent.fileNames(in: store).isEmpty)
    }

    @Test func finishWithTheRightExpectationsStores() throws {
        let directory = try TemporaryDirectory()
        let store = TestContent.store(in: directory)
        let content = Data("attach2".utf8)
        let expected = try BlobKey("sha1-iTebnQazmdAhRBH64y9E6JqwSoc=")
        let key = try store.write(from: InputStream(data: content), expecting: expected, expectedLength: 7)
        #expect(key == expected)
    }

    @Test func rewritingReplacesADamagedCopyOfTheWrongSize() throws {
        let directory = try TemporaryDirectory()
        let store = TestContent.store(in: directory)
        let content = Data("intact content".utf8)
        let key = try store.write(content)
        try Data("intact".utf8).write(to: store.url(for: key), options: .atomic)
        try store.write(content)
        #expect(try store.data(for: key) == content)
    }

    @Test func streamThatFailsPartWayStoresNothing() throws {
        let directory = try TemporaryDirectory()
        let store = TestContent.store(in: directory)
        let stream = FailingInputStream(bytesBeforeFailure: 10_000)
        #expect { try store.write(from: stream, chunkSize: 1000) } throws: { error in
            guard let error = error as? BlobStoreError else { return false }
            return error.code == .io && error.message.contains("10000 bytes")
        }
        #expect(try TestContent.fileNames(in: store).isEmpty)
    }

    @Test func zeroChunkSizeIsRejected() throws {
        let directory = try TemporaryDirectory()
        let store = TestContent.store(in: directory)
        #expect { try store.write(from: InputStream(data: Data("x".utf8)), chunkSize: 0) } throws: { error in
            (error as? BlobStoreError)?.code == .invalidArgument
        }
    }
}

/// A stream that gives some bytes and then fails, as a dropped network connection would.
private final class FailingInputStream: InputStream {
    private let bytesBeforeFailure: Int
    private var given = 0
    private var status: Stream.Status = .notOpen
    private struct Dropped: Error {}

    init(bytesBeforeFailure: Int) {
        self.bytesBeforeFailure = bytesBeforeFailure
        super.init(data: Data())
    }

    override func open() { status = .open }
    override func close() { status = .closed }
    override var streamStatus: Stream.Status { status }
    override var streamError: (any Error)? { status == .error ? Dropped() : nil }
    override var hasBytesAvailable: Bool { status == .open }

    override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength length: Int) -> Int {
        let count = min(length, bytesBeforeFailure - given)
        guard count > 0 else {
            status = .error
            return -1
        }
        buffer.update(repeating: 0x2A, count: count)
        given += count
        return count
    }
}
