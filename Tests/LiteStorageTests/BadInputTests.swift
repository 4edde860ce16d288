import Foundation
import LiteStorage
import Testing
import TestSupport

/// Opening something that is not a healthy database of the engine is a clear error that names
/// the problem, and modifies nothing.
@Suite(.ownThreads) struct BadInputTests {
    /// RocksDB writes a diagnostic LOG on every open attempt; the data files are what must not change.
    private static func isDiagnostic(_ name: String) -> Bool { name.hasPrefix("LOG") }

    /// Builds a data file with a few records, closes it, and returns its path.
    private func makeDatabase(_ engine: StorageEngineKind, in directory: TemporaryDirectory) throws -> String {
        let file = try engine.createDataFile(in: directory)
        let store = try file.keyStore("default")
        try file.write { txn in
            for index in 0..<200 {
                try store.set(Record(key: "doc-\(index)", body: [UInt8](repeating: UInt8(index & 0xFF), count: 300)),
                              ifSequence: 0, in: txn)
            }
        }
        try file.close()
        return file.path
    }

    private func expectRefusal(_ engine: StorageEngineKind, _ path: String, in directory: TemporaryDirectory,
                               _ expected: StorageError) throws {
        let before = try FolderSnapshot(directory.url, ignoring: Self.isDiagnostic)
        let error = #expect(throws: StorageError.self) { try engine.open(path) }
        #expect(error?.code == expected.code, "\(error.map { "\($0)" } ?? "no error")")
        #expect(error?.message.contains(path) == true, "the message names the file")
        #expect(try FolderSnapshot(directory.url, ignoring: Self.isDiagnostic) == before)
    }

    @Test(arguments: StorageEngineKind.allCases)
    func textFileIsNotADatabase(engine: StorageEngineKind) throws {
        try withTemporaryDirectory { directory in
            let path = engine.dataFilePath(in: directory)
            if engine == .rocksdb {
                try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
                try Data("hello, I am a note\n".utf8).write(to: URL(fileURLWithPath: path + "/notes.txt"))
            } else {
                try Data("hello, I am a note\n".utf8).write(to: URL(fileURLWithPath: path))
            }
            try expectRefusal(engine, path, in: directory, .notADatabase)
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func otherEnginesFilesAreNotADatabase(engine: StorageEngineKind) throws {
        try withTemporaryDirectory { directory in
            let otherPath = try makeDatabase(engine.other, in: directory)
            try expectRefusal(engine, otherPath, in: directory, .notADatabase)
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func truncatedDatabaseIsCorrupt(engine: StorageEngineKind) throws {
        try withTemporaryDirectory { directory in
            let path = try makeDatabase(engine, in: directory)
            // SQLite: the main file; RocksDB: the manifest that CURRENT names.
            let victim: String
            if engine == .sqlite {
                victim = path
            } else {
                let current = try String(contentsOfFile: path + "/CURRENT", encoding: .utf8)
                victim = path + "/" + current.trimmingCharacters(in: .whitespacesAndNewlines)
            }
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: victim))
            let size = try handle.seekToEnd()
            try handle.truncate(atOffset: engine == .sqlite ? size / 2 + 100 : 0)
            try handle.close()
            try expectRefusal(engine, path, in: directory, .corrupt)
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func corruptedDatabaseIsCorrupt(engine: StorageEngineKind) throws {
        try withTemporaryDirectory { directory in
            let path = try makeDatabase(engine, in: directory)
            let victim: String
            let offset: UInt64
            if engine == .sqlite {
                victim = path
                offset = 100  // page 1 after the header: the schema's b-tree page
            } else {
                let current = try String(contentsOfFile: path + "/CURRENT", encoding: .utf8)
                victim = path + "/" + current.trimmingCharacters(in: .whitespacesAndNewlines)
                offset = 0
            }
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: victim))
            try handle.seek(toOffset: offset)
            var generator = SplitMix64(seed: 7)
            handle.write(Data((0..<300).map { _ in UInt8(truncatingIfNeeded: generator.next()) }))
            try handle.close()
            try expectRefusal(engine, path, in: directory, .corrupt)
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func emptyFileOrFolderIsNotADatabase(engine: StorageEngineKind) throws {
        try withTemporaryDirectory { directory in
            let path = engine.dataFilePath(in: directory)
            if engine == .rocksdb {
                try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
            } else {
                _ = FileManager.default.createFile(atPath: path, contents: Data())
            }
            try expectRefusal(engine, path, in: directory, .notADatabase)
        }
    }
}
