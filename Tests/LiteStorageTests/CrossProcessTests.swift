import Foundation
import LiteStorage
import Testing
import TestSupport

/// What a second process sees while another one writes (decisions.md Storage-2).
@Suite(.ownThreads) struct CrossProcessTests {
    /// Starts the crash writer on `path` and returns once it committed its first transaction.
    private func startWriter(_ engine: StorageEngineKind, path: String) throws -> Process {
        let process = Process()
        process.executableURL = try CrashSafetyTests.writerURL()
        process.arguments = [engine.rawValue, path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        var seen = Data()
        while !seen.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            seen.append(chunk)
        }
        return process
    }

    @Test func sqliteWritersInTwoProcessesBothCommit() throws {
        try withTemporaryDirectory { directory in
            let engine = StorageEngineKind.sqlite
            try engine.createDataFile(in: directory).close()
            let path = engine.dataFilePath(in: directory)
            let writer = try startWriter(engine, path: path)
            defer {
                kill(writer.processIdentifier, SIGKILL)
                writer.waitUntilExit()
            }
            #expect(writer.isRunning)
            let file = try engine.open(path)
            defer { try? file.close() }
            let store = try file.keyStore("mine")
            for index in 0..<5 {
                try file.write { txn in try store.set(Record(key: "k\(index)"), ifSequence: 0, in: txn) }
            }
            #expect(try store.recordCount() == 5)
            #expect(try file.keyStore("default").get("counter") != nil)
        }
    }

    @Test func rocksdbFolderOpenInAnotherProcessIsBusy() throws {
        try withTemporaryDirectory { directory in
            let engine = StorageEngineKind.rocksdb
            try engine.createDataFile(in: directory).close()
            let path = engine.dataFilePath(in: directory)
            let writer = try startWriter(engine, path: path)
            defer {
                kill(writer.processIdentifier, SIGKILL)
                writer.waitUntilExit()
            }
            #expect(writer.isRunning)
            let error = #expect(throws: StorageError.self) { try engine.open(path) }
            #expect(error?.code == .busy, "\(error.map { "\($0)" } ?? "no error")")
        }
    }
}
