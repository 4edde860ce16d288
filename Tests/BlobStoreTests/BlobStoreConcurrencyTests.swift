import BlobStore
import CouchbaseLiteSwift
import Foundation
import TestSupport
import Testing

@Suite(.ownThreads) struct BlobStoreConcurrencyTests {
    @Test func concurrentWritersOfTheSameContentStoreOneBlob() async throws {
        let directory = try TemporaryDirectory()
        let store = TestContent.store(in: directory)
        let content = Data(TestContent.bytes(count: 256 * 1024, seed: 11))
        let keys = try await withThrowingTaskGroup(of: BlobKey.self) { group in
            for _ in 0..<16 {
                group.addTask {
                    let writer = try store.makeWriter()
                    for start in stride(from: 0, to: content.count, by: 10_000) {
                        try writer.append(content[start..<min(start + 10_000, content.count)])
                    }
                    return try writer.finish()
                }
            }
            return try await group.reduce(into: Set<BlobKey>()) { $0.insert($1) }
        }
        #expect(keys.count == 1)
        #expect(try TestContent.fileNames(in: store) == keys.map(\.fileName))
        if let key = keys.first { #expect(try store.data(for: key) == content) }
    }

    @Test func concurrentWritersOfDifferentContentStoreEveryBlob() async throws {
        let directory = try TemporaryDirectory()
        let store = TestContent.store(in: directory)
        let contents = (0..<24).map { Data(TestContent.bytes(count: 20_000 + $0, seed: UInt64($0 + 100))) }
        let keys = try await withThrowingTaskGroup(of: (Int, BlobKey).self) { group in
            for (index, content) in contents.enumerated() {
                group.addTask { (index, try store.write(from: InputStream(data: content), chunkSize: 3000)) }
            }
            return try await group.reduce(into: [Int: BlobKey]()) { $0[$1.0] = $1.1 }
        }
        #expect(Set(try store.allKeys()) == Set(keys.values))
        for (index, content) in contents.enumerated() {
            let key = try #require(keys[index])
            #expect(key == (try TestContent.referenceKey(Array(content))))
            #expect(try store.data(for: key) == content)
        }
        #expect(try TestContent.fileNames(in: store).allSatisfy { !$0.hasPrefix("incoming_") })
    }

    @Test func compactionDuringWritesKeepsEveryOpenWriter() async throws {
        let directory = try TemporaryDirectory()
        let store = TestContent.store(in: directory)
        let keys = try await withThrowingTaskGroup(of: BlobKey?.self) { group in
            for index in 0..<8 {
                group.addTask {
                    let writer = try store.makeWriter()
                    for part in 0..<50 { try writer.append(Data("writer \(index) part \(part);".utf8)) }
                    return try writer.finish()
                }
            }
            group.addTask {
                for _ in 0..<20 { try store.removeBlobs(notIn: [], modifiedBefore: .distantPast, temporaryFileAge: 0) }
                return nil
            }
            return try await group.reduce(into: Set<BlobKey>()) { if let key = $1 { $0.insert(key) } }
        }
        #expect(keys.count == 8)
        for key in keys { #expect(try store.data(for: key).count > 0) }
    }
}
