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

    /// A new file in a temporary folder, open, with "a" set to "ours" and read back.
    private func withNewFile(_ body: (_ path: String, _ file: SQLiteDataFile) throws -> Void) throws {
        try withTemporaryDirectory { directory in
            let path = directory.appending("db.sqlite3").path
            let file = try SQLiteEngine().openFile(at: path, options: .init(create: true))
            defer { try? file.close() }
            try put(file, "a", "ours")
            #expect(try read(file, "a") == "ours")
            try body(path, file)
        }
    }

    /// SQL that sets "a"'s body to `text`, as another process runs it.
    private func settingA(to text: String) -> String {
        "UPDATE kv_default SET body = X'\(text.utf8.map { String(format: "%02X", $0) }.joined())' WHERE key = 'a'"
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
        try withNewFile { path, file in
            for round in 0..<5 {
                let text = "theirs \(round)"
                try runSQLite3(path, settingA(to: text))
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

    /// A read snapshot takes an idle reader's kept transaction when it still sees the latest
    /// commit (Storage-37): a snapshot must still see every commit made before it began, by this
    /// instance, another instance or another process, and none made while it is open.
    @Test func snapshotsSeeEveryCommitBeforeThemAndNoneDuring() throws {
        try withNewFile { path, file in
            let other = try SQLiteEngine().openFile(at: path, options: .init())
            defer { try? other.close() }
            for round in 0..<12 {
                // A read by key leaves its transaction kept; a snapshot then reuses it or not.
                _ = try read(file, "a")
                let text = "v\(round)"
                switch round % 3 {
                case 0: try put(file, "a", text)
                case 1: try put(other, "a", text)
                default: try runSQLite3(path, settingA(to: text))
                }
                try file.withReadSnapshot {
                    let seen = try read(file, "a")
                    #expect(seen == text, "round \(round)")
                    // Commits while the snapshot is open stay out of it…
                    try put(other, "a", text + " later")
                    let stillSeen = try read(file, "a")
                    #expect(stillSeen == text, "round \(round)")
                }
                // …and are in the next one, and in a read by key.
                let next = try file.withReadSnapshot { try read(file, "a") }
                #expect(next == text + " later")
                #expect(try read(file, "a") == text + " later")
                let nested = try file.withReadSnapshot { try file.withReadSnapshot { try read(file, "a") } }
                #expect(nested == text + " later")
            }
        }
    }

    /// Closing any descriptor of a file drops every POSIX lock the process holds on it. Opening
    /// a second instance read the file's header with a descriptor of its own, which dropped the
    /// first instance's shared lock: another process closing its last connection then took the
    /// file for its own, checkpointed and deleted the WAL, and this process went on reading
    /// (and would have written) a deleted WAL (Storage-38).
    @Test func anotherProcessLeavesTheWALOfAFileOpenedTwice() throws {
        try withNewFile { path, file in
            let second = try SQLiteEngine().openFile(at: path, options: .init())
            defer { try? second.close() }
            #expect(try read(second, "a") == "ours")
            try runSQLite3(path, settingA(to: "theirs"))
            #expect(FileManager.default.fileExists(atPath: path + "-wal"), "the other process deleted the WAL")
            #expect(try read(file, "a") == "theirs")
            try put(file, "b", "after")
            #expect(try sqlite3Output(path, "SELECT CAST(body AS TEXT) FROM kv_default WHERE key = 'b'") == "after")
        }
    }

    private func sqlite3Output(_ path: String, _ sql: String) throws -> String {
        let process = Process()
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        process.arguments = ["-cmd", ".timeout 10000", path, sql]
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
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
