@testable import CouchbaseLiteSwift
import Dispatch
import Foundation
import Testing
import TestSupport

/// The travel set plus 20 blobs pushed with `cblite push` to a listener and pulled back with
/// `cblite pull`, for every pairing of engines: the same documents, revision IDs and blobs.
@Suite(.ownThreads) struct CLIReplicationTests {
    static let pairs: [(StorageEngineKind, StorageEngineKind)] = StorageEngineKind.allCases.flatMap { first in
        StorageEngineKind.allCases.map { (first, $0) }
    }

    func open(_ name: String, _ engine: StorageEngineKind, in directory: TemporaryDirectory) throws -> Database {
        let config = DatabaseConfiguration()
        config.directory = directory.path
        config.storageEngine = engine == .sqlite ? .sqlite : .rocksdb
        return try Database(name: name, config: config)
    }

    /// Every document as "ID revision JSON", and every blob's content by digest.
    func contents(_ database: Database) throws -> (documents: [String], blobs: [String: Data]) {
        var documents: [String] = []
        var blobs: [String: Data] = [:]
        let query = QueryBuilder.select(SelectResult.expression(Meta.id)).from(DataSource.database(database))
        for row in try query.execute() {
            guard let id = row.string(at: 0), let document = database.document(withID: id) else { continue }
            documents.append("\(id) \(document.revisionID ?? "?") \(document.toJSON())")
            if let blob = document.blob(forKey: "attachment"), let digest = blob.digest { blobs[digest] = blob.content }
        }
        return (documents.sorted(), blobs)
    }

    @Test(arguments: pairs.indices)
    func travelAndBlobsThroughServePushAndPull(pair: Int) async throws {
        let (sourceEngine, serverEngine) = Self.pairs[pair]
        let directory = try TemporaryDirectory()
        defer { withExtendedLifetime(directory) {} }
        // The source: the travel set (without the hotels that name blobs it lacks) and 20 blobs.
        let source = try open("source", sourceEngine, in: directory)
        let travel = try Fixtures.url("travel")
        try source.inBatch {
            for file in ["travel.airlines.jsonl", "travel.hotels.jsonl", "travel.routes.jsonl", "travel-sg.json"] {
                let text = try String(contentsOf: travel.appendingPathComponent(file), encoding: .utf8)
                for line in text.split(separator: "\n") where !line.contains("\"digest\"") {
                    // `_id` is not a property (replication strips it, as LiteCore does).
                    var object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                    let id = try #require(object.removeValue(forKey: "_id") as? String)
                    try source.saveDocument(MutableDocument(id: id, data: object))
                }
            }
            for index in 1...20 {
                let document = MutableDocument(id: "blob-\(index)")
                let content = Data((0..<(1_000 * index)).map { UInt8(truncatingIfNeeded: $0 * index + 7) })
                document.setBlob(Blob(contentType: "application/octet-stream", data: content), forKey: "attachment")
                try source.saveDocument(document)
            }
        }
        let expected = try contents(source)
        try source.close()

        let server = try open("server", serverEngine, in: directory)
        defer { try? server.close() }
        var listenerConfig = URLEndpointListenerConfiguration(database: server)
        listenerConfig.disableTLS = true
        listenerConfig.networkInterface = "127.0.0.1"
        let listener = URLEndpointListener(config: listenerConfig)
        try await listener.start()
        let url = try #require(listener.urls.first).absoluteString
        let sourcePath = directory.appending("source.cblite2").path
        let pushed = try await Self.offThePool { try ToolRunner.cblite("push", sourcePath, url) }
        #expect(pushed.lines.last == "\(expected.documents.count) pushed, 0 pulled, 0 failed", "\(pushed.stderr.suffix(300))")
        #expect(try contents(server).documents == expected.documents)
        #expect(try contents(server).blobs == expected.blobs)

        // Pulled back into a new database of the source's engine.
        try open("copy", sourceEngine, in: directory).close()
        let copyPath = directory.appending("copy.cblite2").path
        let pulled = try await Self.offThePool { try ToolRunner.cblite("pull", copyPath, url) }
        #expect(pulled.lines.last == "0 pushed, \(expected.documents.count) pulled, 0 failed", "\(pulled.stderr.suffix(300))")
        await listener.stop()
        let copy = try open("copy", sourceEngine, in: directory)
        defer { try? copy.close() }
        let copied = try contents(copy)
        #expect(copied.documents == expected.documents)
        #expect(copied.blobs == expected.blobs)
        #expect(copied.blobs.count == 20)
    }

    static func offThePool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async(execute: { continuation.resume(with: Swift.Result { try body() }) })
        }
    }
}
