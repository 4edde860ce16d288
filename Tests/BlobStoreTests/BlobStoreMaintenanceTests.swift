import BlobStore
import Foundation
import Testing
import TestSupport

@Suite(.ownThreads) struct BlobStoreMaintenanceTests {
    private func writeSeveral(_ store: BlobStore, count: Int) throws -> [BlobKey] {
        try (0..<count).map { try store.write(Data("blob number \($0)".utf8)) }
    }

    private func age(_ url: URL, by seconds: TimeInterval) throws {
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -seconds)],
                                              ofItemAtPath: url.path)
    }

    @Test func allKeysListsEveryBlobAndSkipsOtherFiles() throws {
        let directory = try TemporaryDirectory()
        let store = TestContent.store(in: directory)
        let keys = try writeSeveral(store, count: 5)
        try Data("x".utf8).write(to: store.directory.appendingPathComponent("notes.txt"))
        let writer = try store.makeWriter()
        try writer.append(Data("in progress".utf8))
        #expect(try store.allKeys() == keys.sorted())
        writer.abort()
    }

    @Test func compactionKeepsTheGivenSetAndRemovesTheRest() throws {
        let directory = try TemporaryDirectory()
        let store = TestContent.store(in: directory)
        let keys = try writeSeveral(store, count: 6)
        let keep = Set(keys[0..<3])
        let summary = try store.removeBlobs(notIn: keep)
        #expect(Set(try store.allKeys()) == keep)
        #expect(summary.removedBlobs == keys[3...].sorted())
        #expect(summary.removedBytes == 3 * Int64("blob number 0".utf8.count))
        for key in keep { #expect(try store.data(for: key).count > 0) }
    }

    @Test func compactionWithAnEmptySetRemovesEveryBlob() throws {
        let directory = try TemporaryDirectory()
        let store = TestContent.store(in: directory)
        _ = try writeSeveral(store, count: 4)
        try store.removeBlobs(notIn: [])
        #expect(try store.allKeys().isEmpty)
    }

    @Test func compactionOfAStoreNeverWrittenDoesNothing() throws {
        let directory = try TemporaryDirectory()
        let store = TestContent.store(in: directory)
        #expect(try store.removeBlobs(notIn: []) == BlobRemovalSummary())
    }

    @Test func compactionKeepsBlobsWrittenAfterItsCutoff() throws {
        let directory = try TemporaryDirectory()
        let store = TestContent.store(in: directory)
        let old = try store.write(Data("old".utf8))
        try age(store.url(for: old), by: 120)
        let cutoff = Date(timeIntervalSinceNow: -60)
        let fresh = try store.write(Data("fresh, not yet referenced".utf8))
        try store.removeBlobs(notIn: [], modifiedBefore: cutoff)
        #expect(try store.allKeys() == [fresh])
    }

    @Test func rewritingAnExistingBlobProtectsItFromAnEarlierCompaction() throws {
        let directory = try TemporaryDirectory()
        let store = TestContent.store(in: directory)
        let key = try store.write(Data("written long ago".utf8))
        try age(store.url(for: key), by: 3600)
        let cutoff = Date(timeIntervalSinceNow: -60)
        try store.write(Data("written long ago".utf8))
        try store.removeBlobs(notIn: [], modifiedBefore: cutoff)
        #expect(store.contains(key))
    }

    @Test func compactionNeverRemovesTheFileOfAnOpenWriter() throws {
        let directory = try TemporaryDirectory()
        let store = TestContent.store(in: directory)
        let writer = try store.makeWriter()
        try writer.append(Data("slow upload, part 1".utf8))
        let temporary = try TestContent.fileNames(in: store)
        #expect(temporary.count == 1)
        try age(store.directory.appendingPathComponent(temporary[0]), by: 86_400)
        // Another store object over the same directory must respect the writer too.
        let other = BlobStore(directory: store.directory)
        let summary = try other.removeBlobs(notIn: [], temporaryFileAge: 0)
        #expect(summary.removedTemporaryFiles == 0)
        try writer.append(Data(", part 2".utf8))
        let key = try writer.finish()
        #expect(try store.data(for: key) == Data("slow upload, part 1, part 2".utf8))
    }

    @Test func compactionRemovesOldLeftoverTemporaryFiles() throws {
        let directory = try TemporaryDirectory()
        let store = TestContent.store(in: directory)
        try store.write(Data("make the directory".utf8))
        let leftover = store.directory.appendingPathComponent("incoming_crashed")
        try Data("half a blob".utf8).write(to: leftover)
        try age(leftover, by: 2 * BlobStore.defaultTemporaryFileAge)
        let summary = try store.removeBlobs(notIn: Set(try store.allKeys()))
        #expect(summary.removedTemporaryFiles == 1)
        #expect(!FileManager.default.fileExists(atPath: leftover.path))
    }

    @Test func compactionKeepsYoungTemporaryFilesOfOtherProcesses() throws {
        let directory = try TemporaryDirectory()
        let store = TestContent.store(in: directory)
        try store.write(Data("make the directory".utf8))
        let foreign = store.directory.appendingPathComponent("incoming_otherprocess")
        try Data("being written elsewhere".utf8).write(to: foreign)
        try store.removeBlobs(notIn: [])
        #expect(FileManager.default.fileExists(atPath: foreign.path))
    }

    @Test func compactionLeavesFilesThatAreNotBlobs() throws {
        let directory = try TemporaryDirectory()
        let store = TestContent.store(in: directory)
        try store.write(Data("x".utf8))
        let stray = store.directory.appendingPathComponent("README")
        try Data("keep me".utf8).write(to: stray)
        try store.removeBlobs(notIn: [])
        #expect(FileManager.default.fileExists(atPath: stray.path))
    }

    @Test func transferByLinkSharesTheFile() throws {
        let directory = try TemporaryDirectory()
        let source = BlobStore(directory: directory.appending("a/Attachments"))
        let destination = BlobStore(directory: directory.appending("b/Attachments"))
        let key = try source.write(Data("converted with the database".utf8))
        try source.transfer(key, to: destination)
        #expect(try destination.data(for: key) == Data("converted with the database".utf8))
        let attributes = try FileManager.default.attributesOfItem(atPath: destination.url(for: key).path)
        #expect((attributes[.referenceCount] as? NSNumber)?.intValue == 2)
    }

    @Test func transferByCopyMakesAnIndependentFile() throws {
        let directory = try TemporaryDirectory()
        let source = BlobStore(directory: directory.appending("a/Attachments"))
        let destination = BlobStore(directory: directory.appending("b/Attachments"))
        let key = try source.write(Data("copied".utf8))
        try source.transfer(key, to: destination, method: .copy)
        try source.delete(key)
        #expect(try destination.data(for: key) == Data("copied".utf8))
        let attributes = try FileManager.default.attributesOfItem(atPath: destination.url(for: key).path)
        #expect((attributes[.referenceCount] as? NSNumber)?.intValue == 1)
    }

    @Test func transferByCopyRefusesACorruptSource() throws {
        let directory = try TemporaryDirectory()
        let source = BlobStore(directory: directory.appending("a/Attachments"))
        let destination = BlobStore(directory: directory.appending("b/Attachments"))
        let key = try source.write(Data("original".utf8))
        try Data("tampered".utf8).write(to: source.url(for: key), options: .atomic)
        #expect { try source.transfer(key, to: destination, method: .copy) } throws: { error in
            (error as? BlobStoreError)?.code == .corrupt
        }
        #expect(try destination.allKeys().isEmpty)
    }

    @Test func transferOfAMissingBlobIsNotFound() throws {
        let directory = try TemporaryDirectory()
        let source = BlobStore(directory: directory.appending("a/Attachments"))
        let destination = BlobStore(directory: directory.appending("b/Attachments"))
        let key = BlobKey(hashing: Data("nowhere".utf8))
        #expect { try source.transfer(key, to: destination) } throws: { error in
            (error as? BlobStoreError)?.code == .notFound
        }
    }

    @Test func legacyAttachmentWithAMismatchedNameIsRefused() throws {
        let directory = try TemporaryDirectory()
        let store = TestContent.store(in: directory)
        let legacy = directory.appending("attachments")
        try FileManager.default.createDirectory(at: legacy, withIntermediateDirectories: true)
        let wrongName = BlobKey(hashing: Data("something else".utf8)).legacyFileName
        try Data("attach1".utf8).write(to: legacy.appendingPathComponent(wrongName))
        #expect { try store.importLegacyAttachment(at: legacy.appendingPathComponent(wrongName)) } throws: { error in
            guard let error = error as? BlobStoreError else { return false }
            return error.code == .contentMismatch && error.message.contains(wrongName)
        }
        #expect(try store.allKeys().isEmpty)
    }

    @Test func legacyAttachmentMissingFromItsFolderIsNotFound() throws {
        let directory = try TemporaryDirectory()
        let store = TestContent.store(in: directory)
        let key = BlobKey(hashing: Data("gone".utf8))
        #expect { try store.importLegacyAttachment(key, fromDirectory: directory.url) } throws: { error in
            guard let error = error as? BlobStoreError else { return false }
            return error.code == .notFound && error.message.contains(key.legacyFileName)
        }
    }
}
