import Foundation
import LiteStorage
import LiteSupport
import Testing
import TestSupport

/// A child process writes transactions and is killed with SIGKILL at seeded random points;
/// after each kill every committed transaction is complete and no partial one is visible.
@Suite(.ownThreads) struct CrashSafetyTests {
    static let perTransaction = 50  // must match Tools/storage-crash-writer

    static func body(_ transaction: Int, _ index: Int) -> [UInt8] {
        let length = 200 + (transaction * 131 + index * 17) % 1800
        return (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ transaction &+ index) }
    }

    /// The writer executable, built next to the test bundle by `swift build --build-tests`.
    static func writerURL() throws -> URL {
        let candidates = [Bundle.main.bundleURL, Bundle.main.bundleURL.deletingLastPathComponent(),
                          URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()]
        for folder in candidates {
            let url = folder.appendingPathComponent("storage-crash-writer")
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        throw StorageError(.notFound, "storage-crash-writer not found next to the tests in \(candidates); "
                           + "run `swift build --build-tests` first")
    }

    /// Runs the writer until it reported `commits` transactions, then kills it mid-work.
    /// - Returns: the last transaction it reported committed.
    /// - Parameter key: the key the data file is encrypted with, if it is.
    static func runAndKill(_ engine: StorageEngineKind, path: String, commits: Int, spin: Int,
                           key: AES256Key? = nil) throws -> Int {
        let process = Process()
        process.executableURL = try writerURL()
        process.arguments = [engine.rawValue, path] + (key.map { [$0.bytes.map { String(format: "%02x", $0) }.joined()] } ?? [])
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        var lines = CommitLineReader(output.fileHandleForReading)
        let reported = lines.read(commits: commits) ?? 0
        // A seeded amount of busy work moves the kill to a different point of the next transaction.
        var sink = 0
        for step in 0..<spin { sink &+= step &* 7 }
        #expect(process.isRunning, "the writer stopped by itself (sink \(sink))")
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal)
        return reported
    }

    /// Every transaction up to the stored counter is complete, and nothing from a later one exists.
    static func verify(_ engine: StorageEngineKind, path: String, reported: Int, key: AES256Key? = nil) throws -> Int {
        let file = try engine.engine.open(at: path, options: DataFileOptions(encryptionKey: key))
        defer { try? file.close() }
        let store = try file.keyStore("default")
        let counter = Int(String(decoding: try store.get("counter")?.body ?? [], as: UTF8.self)) ?? 0
        #expect(counter >= reported, "a transaction reported committed was lost")
        #expect(try store.recordCount() == counter * perTransaction + 1)
        for transaction in 1...max(counter, 1) where counter > 0 {
            for index in 0..<perTransaction {
                let record = try store.get("t\(transaction)-\(index)")
                if record?.body != body(transaction, index) {
                    Issue.record("transaction \(transaction) record \(index) is missing or damaged")
                    return counter
                }
            }
        }
        #expect(try store.get("t\(counter + 1)-0") == nil)
        #expect(try store.lastSequence() >= UInt64(counter * (perTransaction + 1)))
        return counter
    }

    @Test(arguments: StorageEngineKind.allCases)
    func committedTransactionsSurviveSIGKILLAndPartialOnesVanish(engine: StorageEngineKind) throws {
        try withTemporaryDirectory { directory in
            let path = engine.dataFilePath(in: directory)
            try engine.createDataFile(in: directory).close()
            var generator = SplitMix64(seed: engine == .sqlite ? 4 : 8)
            var counter = 0
            for _ in 0..<6 {
                let commits = Int(generator.next() % 12) + 1
                let spin = Int(generator.next() % 200_000)
                let reported = try Self.runAndKill(engine, path: path, commits: commits, spin: spin)
                let now = try Self.verify(engine, path: path, reported: reported)
                #expect(now > counter, "the writer made progress")
                counter = now
            }
        }
    }

    /// The same with the data file encrypted at rest: WAL recovery after SIGKILL goes through the
    /// encrypting VFS, whose frames a kill can tear.
    @Test(arguments: EncryptionAtRestTests.engines)
    func encryptedCommittedTransactionsSurviveSIGKILL(engine: StorageEngineKind) throws {
        try withTemporaryDirectory { directory in
            let path = engine.dataFilePath(in: directory)
            let key = EncryptionAtRestTests.key
            try engine.engine.open(at: path, options: DataFileOptions(create: true, encryptionKey: key)).close()
            var generator = SplitMix64(seed: 41)
            var counter = 0
            for _ in 0..<6 {
                let commits = Int(generator.next() % 12) + 1
                let spin = Int(generator.next() % 200_000)
                let reported = try Self.runAndKill(engine, path: path, commits: commits, spin: spin, key: key)
                let now = try Self.verify(engine, path: path, reported: reported, key: key)
                #expect(now > counter, "the writer made progress")
                counter = now
            }
            #expect(throws: StorageError.notADatabase) { try engine.open(path) }
        }
    }
}
