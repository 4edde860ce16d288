import CouchbaseLiteSwift
import Foundation
import Testing
import TestSupport

/// The SIGKILL harness of the storage crash test, one level up: `database-crash-writer` runs
/// document transactions through the public API (saves with blobs; value and full-text index
/// updates; deletions, purges and compactions) and is killed at seeded random points. After
/// each kill the database holds exactly the state after its last committed transaction, every
/// blob a document names is there with its content, the indexes agree with a full scan, and
/// after a compaction no blob is orphaned.
@Suite(.ownThreads) struct DatabaseCrashTests {
    static let kills = 6

    static func configuration(_ engine: StorageEngineKind, _ directory: TemporaryDirectory) -> DatabaseConfiguration {
        let config = DatabaseConfiguration()
        config.directory = directory.path
        config.storageEngine = engine == .sqlite ? .sqlite : .rocksdb
        return config
    }

    /// Runs the writer until it reported `commits` transactions, then kills it mid-work.
    /// - Returns: the last transaction it reported committed.
    static func runAndKill(_ kind: DatabaseCrashWorkload.Kind, _ engine: StorageEngineKind, directory: String,
                           commits: Int, spin: Int) throws -> Int {
        var writer = try CrashWriterProcess([kind.rawValue, engine.rawValue, directory])
        let reported = writer.lines.read(commits: commits) ?? 0
        // A seeded amount of busy work moves the kill to a different point of the next transaction.
        var sink = 0
        for step in 0..<spin { sink &+= step &* 7 }
        writer.kill(note: " (sink \(sink))")
        return reported
    }

    /// Checks the database against the workload's state after its counter; returns the counter.
    static func verify(_ kind: DatabaseCrashWorkload.Kind, _ engine: StorageEngineKind, directory: TemporaryDirectory,
                       reported: Int) throws -> Int {
        let database = try Database(name: "crash", config: configuration(engine, directory))
        defer { try? database.close() }  // allowed: the checks below already failed if it matters
        let counter = database.document(withID: DatabaseCrashWorkload.counterID)?.int(forKey: "n") ?? 0
        #expect(counter >= reported, "a transaction reported committed was lost")
        let expected = DatabaseCrashWorkload.expectedDocuments(after: counter, kind: kind)

        // Documents: exactly the expected ones, with their content and blobs.
        let all = try rows(database, "SELECT META().id, category, text, revision FROM _")
        #expect(Set(all.map(\.id)) == Set(expected.keys).union([DatabaseCrashWorkload.counterID]))
        var digests = Set<String>()
        for (id, state) in expected {
            guard let document = database.document(withID: id) else {
                Issue.record("\(kind) \(engine): document \(id) of transaction \(state.revision) is missing (counter \(counter))")
                continue
            }
            #expect(document.int(forKey: "revision") == state.revision && document.string(forKey: "text") == state.text)
            let blob = document.blob(forKey: "blob")
            #expect(blob?.content.map(Array.init) == DatabaseCrashWorkload.blobContent(state.blobSeed),
                    "\(kind) \(engine): the blob of \(id) is missing or damaged")
            if let digest = blob?.digest { digests.insert(digest) }
        }

        // Indexes (the queries below use them): the same answers as a full scan.
        if kind == .indexes {
            for category in DatabaseCrashWorkload.categories {
                let indexed = try rows(database, "SELECT META().id FROM _ WHERE category = '\(category)'").map(\.id)
                let scanned = all.filter { $0.category == category }.map(\.id)
                #expect(Set(indexed) == Set(scanned), "\(kind) \(engine): value index for \(category)")
            }
            for word in DatabaseCrashWorkload.words {
                let indexed = try rows(database, "SELECT META().id FROM _ WHERE MATCH(text, '\(word)')").map(\.id)
                let scanned = all.filter { $0.text.split(separator: " ").contains(Substring(word)) }.map(\.id)
                #expect(Set(indexed) == Set(scanned), "\(kind) \(engine): full-text index for \(word)")
            }
        }

        // Blobs: none missing (above); after a compaction, none orphaned.
        try database.compact()
        let folder = directory.appending("crash.cblite2/Attachments").path
        let files = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".blob") }
        #expect(files.count == digests.count, "\(kind) \(engine): \(files.count) blob files for \(digests.count) referenced blobs")
        return counter
    }

    struct Row {
        var id: String
        var category: String
        var text: String
    }

    static func rows(_ database: Database, _ sql: String) throws -> [Row] {
        try database.createQuery(sql).execute().map { row in
            Row(id: row.string(at: 0) ?? "", category: row.string(at: 1) ?? "", text: row.string(at: 2) ?? "")
        }
    }

    @Test(arguments: DatabaseCrashWorkload.Kind.allCases, StorageEngineKind.allCases)
    func everyCommittedTransactionSurvivesSIGKILL(kind: DatabaseCrashWorkload.Kind, engine: StorageEngineKind) async throws {
        let directory = try TemporaryDirectory()
        defer { withExtendedLifetime(directory) {} }
        var generator = SplitMix64(seed: UInt64(kind.rawValue.count * 31 + (engine == .sqlite ? 1 : 2)))
        var counter = 0
        for _ in 0..<Self.kills {
            let commits = Int(generator.next() % 10) + 3
            let spin = Int(generator.next() % 300_000)
            // Off Swift concurrency's pool: the child is waited for with blocking reads.
            let now = try await onOwnThread {
                let reported = try Self.runAndKill(kind, engine, directory: directory.path, commits: commits, spin: spin)
                return try Self.verify(kind, engine, directory: directory, reported: reported)
            }
            #expect(now > counter, "the writer made progress")
            counter = now
        }
        print("database crash \(kind) \(engine): \(Self.kills) kills, \(counter) transactions, consistent after each")
    }
}
