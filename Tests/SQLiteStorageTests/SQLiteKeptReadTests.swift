import Foundation
import LiteStorage
import SQLiteStorage
import Testing
import TestSupport

/// Reader connections keep a read transaction open between reads (Storage-14): a read must still
/// see every commit made before it, whoever made it, and a kept transaction must not keep the
/// WAL from being checkpointed (in the background, Storage-15).
@Suite(.ownThreads) struct SQLiteKeptReadTests {
    private func body(_ text: String) -> [UInt8] { Array(text.utf8) }

    private func put(_ file: SQLiteDataFile, _ key: String, _ text: String) throws {
        try file.write { txn in _ = try file.keyStore("default").set(Record(key: key, body: body(text)), ifSequence: nil, in: txn) }
    }

    private func read(_ file: SQLiteDataFile, _ key: String) throws -> String? {
        try file.keyStore("default").get(key).map { String(decoding: $0.body, as: UTF8.self) }
    }

    @Test func readsSeeEveryCommitOfTheSameInstance() throws {
        try withTemporaryDirectory { directory in
            let file = try SQLiteEngine().openFile(at: directory.appending("db.sqlite3").path, options: .init(create: true))
            defer { try? file.close() }
            for round in 0..<30 {
                try put(file, "a", "v\(round)")
                #expect(try read(file, "a") == "v\(round)")
                #expect(try read(file, "a") == "v\(round)")
            }
        }
    }

    @Test func readsSeeCommitsOfAnotherInstanceOnThePath() throws {
        try withTemporaryDirectory { directory in
            let path = directory.appending("db.sqlite3").path
            let writer = try SQLiteEngine().openFile(at: path, options: .init(create: true))
            defer { try? writer.close() }
            try put(writer, "a", "first")
            let reader = try SQLiteEngine().openFile(at: path, options: .init())
            defer { try? reader.close() }
            for round in 0..<20 {
                #expect(try read(reader, "a") == (round == 0 ? "first" : "v\(round - 1)"))
                try put(writer, "a", "v\(round)")
                #expect(try read(reader, "a") == "v\(round)")
            }
        }
    }

    /// Another process writes the file with the sqlite3 tool between our reads: nothing in this
    /// process learns of those commits except through the file itself.
    @Test func readsSeeCommitsOfAnotherProcess() throws {
        try withTemporaryDirectory { directory in
            let path = directory.appending("db.sqlite3").path
            let file = try SQLiteEngine().openFile(at: path, options: .init(create: true))
            defer { try? file.close() }
            try put(file, "a", "ours")
            #expect(try read(file, "a") == "ours")
            for round in 0..<5 {
                let text = "theirs \(round)"
                let hex = text.utf8.map { String(format: "%02X", $0) }.joined()
                try runSQLite3(path, "UPDATE kv_default SET body = X'\(hex)' WHERE key = 'a'")
                #expect(try read(file, "a") == text)
            }
        }
    }

    /// Without ending idle readers' transactions after a commit, the reader below would pin the
    /// snapshot of its first read and every later frame would stay in the WAL (about 30 MB); with
    /// them ended, checkpoints (in the background, or by the writer past 4,000 pages) keep the
    /// WAL to a few megabytes.
    @Test func aKeptReadDoesNotHoldBackCheckpoints() throws {
        try withTemporaryDirectory { directory in
            let path = directory.appending("db.sqlite3").path
            let file = try SQLiteEngine().openFile(at: path, options: .init(create: true))
            defer { try? file.close() }
            try put(file, "a", "start")
            #expect(try read(file, "a") == "start")
            let large = String(repeating: "x", count: 200_000)
            for round in 0..<150 {
                try put(file, "doc\(round)", large + "\(round)")
            }
            let walSize = try FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int ?? 0
            #expect(walSize < 20_000_000, "the WAL grew to \(walSize) bytes")
            #expect(try read(file, "doc149")?.hasSuffix("149") == true)
        }
    }

    /// Commits past 1,000 pages of WAL are copied into the database file by the background
    /// checkpoint (Storage-15), not left in the WAL.
    @Test func committedPagesReachTheDatabaseFile() throws {
        try withTemporaryDirectory { directory in
            let path = directory.appending("db.sqlite3").path
            let file = try SQLiteEngine().openFile(at: path, options: .init(create: true))
            defer { try? file.close() }
            let large = String(repeating: "y", count: 200_000)
            for round in 0..<30 {
                try put(file, "doc\(round)", large)
            }
            file.waitForBackgroundWork()
            let fileSize = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0
            #expect(fileSize > 4_000_000, "the database file has only \(fileSize) bytes")
            for round in 0..<30 { #expect(try read(file, "doc\(round)")?.count == large.count) }
        }
    }

    private func runSQLite3(_ path: String, _ sql: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        process.arguments = [path, "PRAGMA busy_timeout=10000; " + sql]
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
    }
}
