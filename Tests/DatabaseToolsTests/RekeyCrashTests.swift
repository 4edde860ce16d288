import CouchbaseLiteSwift
import DatabaseConversion
import Foundation
import Testing
import TestSupport

/// `Database.changeEncryptionKey` killed with SIGKILL at random points (issue 41):
/// `database-crash-writer rekey` saves a document and then changes the key, cycling through no
/// key and two raw keys, until it is killed at a seeded random moment of a cycle. After each
/// kill exactly one of the keys opens the database, and it holds every committed document
/// with its blob.
@Suite(.ownThreads) struct RekeyCrashTests {
    static let kills = 8

    static func configuration(_ engine: StorageEngineKind, _ directory: TemporaryDirectory, _ key: Data?) -> DatabaseConfiguration {
        engine.configuration(in: directory, key: key.map(EncryptionKey.key))
    }

    /// Runs the writer for a few cycles, then kills it `fraction` of one cycle's time after a commit.
    /// - Returns: the last cycle it reported committed.
    static func runAndKill(_ engine: StorageEngineKind, directory: String, fraction: Double) throws -> Int {
        var writer = try CrashWriterProcess(["rekey", engine.rawValue, directory])
        writer.lines.read(commits: 1)
        let start = Date()
        writer.lines.read(commits: 2)
        let cycle = Date().timeIntervalSince(start) / 2
        let reported = writer.lines.read(commits: 1) ?? 0
        // Chooses where in the next key change the kill lands; nothing waits on it.
        Thread.sleep(forTimeInterval: cycle * fraction)
        writer.kill()
        return reported
    }

    /// What the kill left: the marker's state, or "between changes" when there is none.
    static func stateLeft(_ directory: TemporaryDirectory) -> String {
        let marker = directory.appending("crash.cblite2").appendingPathComponent(EncryptionKeyChange.markerName)
        guard let text = try? String(contentsOf: marker, encoding: .utf8) else { return "between changes" }  // allowed: no marker
        return text.split(separator: "\n").last.map(String.init) ?? "damaged"
    }

    /// Opens the database with the one key that fits and checks every committed document.
    /// - Returns: the counter.
    static func verify(_ engine: StorageEngineKind, directory: TemporaryDirectory, reported: Int) throws -> Int {
        var fitting: [Data?] = []
        for key in RekeyCrashWorkload.keys {
            guard let database = try? Database(name: "crash", config: configuration(engine, directory, key)) else { continue }  // allowed: the wrong keys are expected to fail
            fitting.append(key)
            try database.close()
        }
        #expect(fitting.count == 1, "\(engine): \(fitting.count) of the keys open the database")
        let key = try #require(fitting.first)
        let database = try Database(name: "crash", config: configuration(engine, directory, key))
        defer { try? database.close() }  // allowed: the checks below already failed if it matters
        let counter = database.document(withID: RekeyCrashWorkload.counterID)?.int(forKey: "n") ?? -1
        #expect(counter >= reported, "\(engine): a cycle reported committed was lost")
        let ids = (0..<RekeyCrashWorkload.initialDocuments).map { ("initial-\($0)", $0) }
            + (0..<max(counter, 0)).map { ("rekey-\($0 + 1)", $0 + 1) }
        var missing: [String] = []
        for (id, number) in ids {
            guard let document = database.document(withID: id), document.int(forKey: "n") == number,
                  document.string(forKey: "text") == RekeyCrashWorkload.text(number) else {
                missing.append(id)
                continue
            }
            if RekeyCrashWorkload.hasBlob(id: id, number: number),
               document.blob(forKey: "blob")?.content.map(Array.init) != RekeyCrashWorkload.blobContent(id: id) {
                missing.append(id + " (blob)")
            }
        }
        #expect(missing.isEmpty, "\(engine): missing or damaged after the kill: \(missing.prefix(5))")
        #expect(database.count == UInt64(ids.count + 1))
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.appending("crash.cblite2").path)
        #expect(!names.contains { $0 == EncryptionKeyChange.markerName || $0.hasSuffix(EncryptionKeyChange.buildingSuffix) },
                "\(engine): the open left \(names)")
        return counter
    }

    @Test(arguments: StorageEngineKind.allCases)
    func aKeyChangeKilledAnywhereLeavesADatabaseOneKeyOpens(engine: StorageEngineKind) async throws {
        let directory = try TemporaryDirectory()
        defer { withExtendedLifetime(directory) {} }
        var generator = SplitMix64(seed: engine == .sqlite ? 4101 : 4102)
        var counter = 0
        var states: [String: Int] = [:]
        for _ in 0..<Self.kills {
            let fraction = Double(generator.next() % 1_000) / 1_000
            // Off Swift concurrency's pool: the child is waited for with blocking reads.
            let (now, state) = try await onOwnThread {
                let reported = try Self.runAndKill(engine, directory: directory.path, fraction: fraction)
                let state = Self.stateLeft(directory)
                return (try Self.verify(engine, directory: directory, reported: reported), state)
            }
            #expect(now > counter, "the writer made progress")
            counter = now
            states[state, default: 0] += 1
        }
        // Most kills land inside a key change (it is most of a cycle's time).
        #expect(states["between changes", default: 0] < Self.kills, "no kill interrupted a key change: \(states)")
        print("key change crash \(engine): \(Self.kills) kills (left: \(states.sorted { $0.key < $1.key })), "
              + "\(counter) cycles, one key opens it after each")
    }
}
