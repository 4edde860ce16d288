@testable import CouchbaseLiteSwift
import Foundation
import Testing
import TestSupport

/// A pull (`cblite pull`) killed with SIGKILL at random points resumes: after the last run the
/// puller holds exactly the server's documents and revisions, every blob a document names is
/// there with its content, and after a compaction no blob is orphaned.
@Suite(.ownThreads) struct PullCrashTests {
    static let documents = 800

    /// Document `n`: a small body; every eighth one also a blob of its own.
    static func fill(_ database: Database) throws {
        try database.inBatch {
            for number in 0..<documents {
                let document = MutableDocument(id: "doc-\(number)")
                document.setInt(number, forKey: "n")
                document.setString(String(repeating: "x", count: number % 200), forKey: "padding")
                if number % 8 == 0 {
                    var random = SplitMix64(seed: UInt64(number))
                    let bytes = (0..<(2048 + number * 40)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
                    document.setBlob(Blob(contentType: "application/octet-stream", data: Data(bytes)), forKey: "blob")
                }
                try database.saveDocument(document)
            }
        }
    }

    /// The bytes of every file in a bundle (the pull's progress as the disk sees it).
    static func bundleBytes(_ path: String) -> Int {
        guard let files = FileManager.default.enumerator(atPath: path) else { return 0 }
        var total = 0
        for case let file as String in files {
            // allowed: a file the pull removed meanwhile counts 0
            let size = try? FileManager.default.attributesOfItem(atPath: path + "/" + file)[.size] as? Int
            total += size ?? 0
        }
        return total
    }

    @Test(arguments: StorageEngineKind.allCases)
    func aKilledPullResumesWithNoBlobMissingOrOrphaned(engine: StorageEngineKind) async throws {
        let directory = try TemporaryDirectory()
        defer { withExtendedLifetime(directory) {} }
        let server = try Database(name: "server", config: DatabaseCrashTests.configuration(engine, directory))
        defer { try? server.close() }  // allowed: the checks already ran
        try Self.fill(server)
        var listenerConfig = URLEndpointListenerConfiguration(database: server)
        listenerConfig.disableTLS = true
        listenerConfig.networkInterface = "127.0.0.1"
        let listener = URLEndpointListener(config: listenerConfig)
        try await listener.start()
        let url = try #require(listener.urls.first).absoluteString
        try Database(name: "puller", config: DatabaseCrashTests.configuration(engine, directory)).close()
        let puller = directory.appending("puller.cblite2").path
        let cblite = try #require(ToolRunner.productsDirectory).appendingPathComponent("cblite")

        var random = SplitMix64(seed: engine == .sqlite ? 11 : 12)
        var kills = 0
        for _ in 0..<3 {
            // The kill's point in the pull: once it has written this many bytes (an event in the
            // pull, not a delay that a slow machine could outlast or a fast one never reach).
            let written = Int.random(in: 16_000...400_000, using: &random)
            kills += try await onOwnThread {
                let before = Self.bundleBytes(puller)
                let process = Process()
                process.executableURL = cblite
                process.arguments = ["pull", puller, url]
                process.standardOutput = FileHandle.nullDevice
                process.standardError = FileHandle.nullDevice
                try process.run()
                while process.isRunning, Self.bundleBytes(puller) - before < written { usleep(1_000) }
                let running = process.isRunning
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
                return running ? 1 : 0
            }
            await listener.waitUntilIdle()
        }
        #expect(kills > 0, "every pull finished before its kill")
        let resumed = try await onOwnThread { try ToolRunner.cblite("pull", puller, url) }
        #expect(resumed.status == 0, "\(resumed.stderr.suffix(300))")
        await listener.waitUntilIdle()
        await listener.stop()

        let pulled = try Database(name: "puller", config: DatabaseCrashTests.configuration(engine, directory))
        defer { try? pulled.close() }  // allowed: the checks already ran
        #expect(try SoakRun.revisions(pulled) == SoakRun.revisions(server))
        var digests = Set<String>()
        for number in stride(from: 0, to: Self.documents, by: 8) {
            let ours = pulled.document(withID: "doc-\(number)")?.blob(forKey: "blob")
            let theirs = server.document(withID: "doc-\(number)")?.blob(forKey: "blob")
            #expect(ours?.content != nil && ours?.content == theirs?.content, "the blob of doc-\(number) is missing or damaged")
            if let digest = ours?.digest { digests.insert(digest) }
        }
        try pulled.compact()
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.appending("puller.cblite2/Attachments").path)
            .filter { $0.hasSuffix(".blob") }
        #expect(files.count == digests.count, "\(files.count) blob files for \(digests.count) referenced blobs")
        print("pull crash \(engine): \(kills) kills, then a full pull; \(Self.documents) documents, \(digests.count) blobs, consistent")
    }
}
