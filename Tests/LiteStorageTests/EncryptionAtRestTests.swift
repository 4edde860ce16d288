import Foundation
import LiteStorage
import LiteSupport
import SQLiteStorage
import Testing
import TestSupport

/// Encryption at rest through the storage seam (issue 41): with `DataFileOptions.encryptionKey`
/// no record's plaintext reaches any file of the engine, the right key reads everything back
/// (after a crash too), and a wrong, missing or unexpected key is refused without a byte of
/// the files changing. Each body takes the engine, so an engine joins `engines` when it
/// encrypts.
@Suite(.ownThreads) struct EncryptionAtRestTests {
    /// The engines that encrypt (RocksDB joins when its files are encrypted).
    static let engines: [StorageEngineKind] = [.sqlite]

    static let key = AES256Key(bytes: Array(0..<32))!
    static let otherKey = AES256Key(bytes: Array(0..<31) + [99])!
    /// In every record key; never on disk in clear.
    static let keyMarker = "zebrakey"
    /// In every record body.
    static let bodyMarker = "PLAINTEXT-BODY-MARKER"

    static func recordKey(_ index: Int) -> String { "\(keyMarker)-\(index)" }
    static func recordBody(_ index: Int, size: Int = 200) -> [UInt8] {
        let text = "\(bodyMarker) record \(index) of the secret ledger; "
        return Array(String(repeating: text, count: max(1, size / text.utf8.count)).utf8)
    }

    static func open(_ engine: StorageEngineKind, _ path: String, key: AES256Key?, create: Bool = false) throws -> any DataFile {
        try engine.engine.open(at: path, options: DataFileOptions(create: create, encryptionKey: key))
    }

    /// Writes `count` records in transactions of `perTransaction`; every tenth body spans pages.
    static func write(_ count: Int, perTransaction: Int = 100, into file: any DataFile) throws {
        let store = try file.keyStore("default")
        for start in stride(from: 0, to: count, by: perTransaction) {
            try file.write { txn in
                for index in start..<min(count, start + perTransaction) {
                    let body = recordBody(index, size: index % 10 == 0 ? 9_000 : 200)
                    _ = try store.set(Record(key: recordKey(index), body: body), ifSequence: nil, in: txn)
                }
                try file.byteKeyStore("index").put(Array("\(keyMarker)-index-\(start)".utf8), [1], in: txn)
            }
        }
    }

    static func expectAllRecords(_ count: Int, in file: any DataFile) throws {
        let store = try file.keyStore("default")
        for index in 0..<count {
            let record = try store.get(recordKey(index))
            #expect(record?.body == recordBody(index, size: index % 10 == 0 ? 9_000 : 200), "record \(index)")
        }
        #expect(try store.enumerate().collect().count == count)
    }

    /// Names of the files under `folder` in which a marker appears.
    static func filesWithPlaintext(in folder: URL) throws -> [String] {
        let snapshot = try FolderSnapshot(folder)
        let needles = [keyMarker, bodyMarker, "secret ledger"].map { Data($0.utf8) }
        return snapshot.files.filter { _, bytes in needles.contains { bytes.range(of: $0) != nil } }.keys.sorted()
    }

    /// Copies the files of the open data file as a crash would leave them: the database and
    /// its WAL, without the shared-memory index (so opening the copy recovers from the WAL).
    static func crashCopy(of folder: URL, to target: URL) throws {
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) where !name.hasSuffix("-shm") {
            try FileManager.default.copyItem(at: folder.appendingPathComponent(name), to: target.appendingPathComponent(name))
        }
    }

    @Test(arguments: engines)
    func noPlaintextReachesAnyFile(engine: StorageEngineKind) throws {
        try withTemporaryDirectory { directory in
            let path = engine.dataFilePath(in: directory)
            let file = try Self.open(engine, path, key: Self.key, create: true)
            try Self.write(1_500, into: file)
            // While open: the WAL and its index hold the latest commits.
            #expect(try Self.filesWithPlaintext(in: directory.url) == [])
            try file.close()
            #expect(try Self.filesWithPlaintext(in: directory.url) == [])
        }
    }

    @Test(arguments: engines)
    func theSameRecordsWithoutAKeyAreFoundInClear(engine: StorageEngineKind) throws {
        // The control for the scan above: it finds what an unencrypted file holds.
        try withTemporaryDirectory { directory in
            let file = try Self.open(engine, engine.dataFilePath(in: directory), key: nil, create: true)
            try Self.write(300, into: file)
            try file.close()
            #expect(try Self.filesWithPlaintext(in: directory.url) != [])
        }
    }

    @Test(arguments: engines)
    func rightKeyReadsEverythingBack(engine: StorageEngineKind) throws {
        try withTemporaryDirectory { directory in
            let path = engine.dataFilePath(in: directory)
            let file = try Self.open(engine, path, key: Self.key, create: true)
            try Self.write(1_000, into: file)
            try file.close()
            let reopened = try Self.open(engine, path, key: Self.key)
            defer { try? reopened.close() }
            try Self.expectAllRecords(1_000, in: reopened)
            #expect(try reopened.byteKeyStore("index").get(Array("\(Self.keyMarker)-index-900".utf8)) == [1])
            // And it stays writable.
            try Self.write(1_100, into: reopened)
            try Self.expectAllRecords(1_100, in: reopened)
        }
    }

    @Test(arguments: engines)
    func wrongOrMissingKeyIsRefusedWithoutWriting(engine: StorageEngineKind) throws {
        try withTemporaryDirectory { directory in
            let live = directory.url.appendingPathComponent("live")
            let crashed = directory.url.appendingPathComponent("crashed")
            for folder in [live, crashed] { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) }
            let path = engine.engine.dataFilePath(inBundle: live.path)
            let file = try Self.open(engine, path, key: Self.key, create: true)
            try Self.write(300, into: file)
            // The hardest case: files with committed work still in the WAL, which an open recovers.
            try Self.crashCopy(of: live, to: crashed)
            try file.close()
            for folder in [live, crashed] {
                let copy = engine.engine.dataFilePath(inBundle: folder.path)
                let before = try FolderSnapshot(folder)
                let wrong = #expect(throws: StorageError.self) { try Self.open(engine, copy, key: Self.otherKey) }
                #expect(wrong?.code == .notADatabaseFile)
                #expect(wrong?.message.contains("wrong") == true, "\(wrong.map(String.init(describing:)) ?? "")")
                let missing = #expect(throws: StorageError.self) { try Self.open(engine, copy, key: nil) }
                #expect(missing?.code == .notADatabaseFile)
                #expect(missing?.message.contains("encrypted") == true, "\(missing.map(String.init(describing:)) ?? "")")
                #expect(try FolderSnapshot(folder) == before)
                let reopened = try Self.open(engine, copy, key: Self.key)
                try Self.expectAllRecords(300, in: reopened)
                try reopened.close()
            }
        }
    }

    @Test(arguments: engines)
    func plaintextFileWithAKeyIsRefusedWithoutWriting(engine: StorageEngineKind) throws {
        try withTemporaryDirectory { directory in
            let path = engine.dataFilePath(in: directory)
            let file = try Self.open(engine, path, key: nil, create: true)
            try Self.write(50, into: file)
            try file.close()
            let before = try FolderSnapshot(directory.url)
            let error = #expect(throws: StorageError.self) { try Self.open(engine, path, key: Self.key) }
            #expect(error?.code == .notADatabaseFile)
            #expect(error?.message.contains("not encrypted") == true)
            #expect(try FolderSnapshot(directory.url) == before)
        }
    }

    @Test(arguments: engines)
    func commitsStillInTheWALSurviveACrash(engine: StorageEngineKind) throws {
        try withTemporaryDirectory { directory in
            let live = directory.url.appendingPathComponent("live")
            let crashed = directory.url.appendingPathComponent("crashed")
            for folder in [live, crashed] { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) }
            let file = try Self.open(engine, engine.engine.dataFilePath(inBundle: live.path), key: Self.key, create: true)
            defer { try? file.close() }
            try Self.write(200, perTransaction: 20, into: file)
            try Self.crashCopy(of: live, to: crashed)
            let copy = engine.engine.dataFilePath(inBundle: crashed.path)
            if engine == .sqlite {
                #expect((fileSize(atPath: copy + "-wal") ?? 0) > 32, "the commits are in the WAL, not checkpointed")
            }
            let recovered = try Self.open(engine, copy, key: Self.key)
            defer { try? recovered.close() }
            try Self.expectAllRecords(200, in: recovered)
        }
    }

    @Test(arguments: engines)
    func aTransactionLargerThanTheCacheSurvivesACrash(engine: StorageEngineKind) throws {
        // SQLite spills such a transaction to the WAL before it commits, overwrites frames it
        // wrote earlier when pages change again, and rewrites their checksums at the commit.
        try withTemporaryDirectory { directory in
            let live = directory.url.appendingPathComponent("live")
            let crashed = directory.url.appendingPathComponent("crashed")
            for folder in [live, crashed] { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) }
            let file = try Self.open(engine, engine.engine.dataFilePath(inBundle: live.path), key: Self.key, create: true)
            defer { try? file.close() }
            let store = try file.keyStore("default")
            try file.write { txn in
                for index in 0..<1_500 {
                    _ = try store.set(Record(key: Self.recordKey(index), body: Self.recordBody(index, size: 9_000)),
                                      ifSequence: nil, in: txn)
                }
                for index in 0..<1_500 where index % 3 == 0 {
                    _ = try store.set(Record(key: Self.recordKey(index), body: Self.recordBody(index + 1, size: 300)),
                                      ifSequence: nil, in: txn)
                }
            }
            try Self.crashCopy(of: live, to: crashed)
            let recovered = try Self.open(engine, engine.engine.dataFilePath(inBundle: crashed.path), key: Self.key)
            defer { try? recovered.close() }
            let again = try recovered.keyStore("default")
            for index in 0..<1_500 {
                let expected = index % 3 == 0 ? Self.recordBody(index + 1, size: 300) : Self.recordBody(index, size: 9_000)
                #expect(try again.get(Self.recordKey(index))?.body == expected, "record \(index)")
            }
            #expect(try Self.filesWithPlaintext(in: directory.url) == [])
        }
    }

    @Test(arguments: engines)
    func anAlteredPageIsReportedAsDamaged(engine: StorageEngineKind) throws {
        guard engine == .sqlite else { return }
        try withTemporaryDirectory { directory in
            let path = engine.dataFilePath(in: directory)
            let file = try Self.open(engine, path, key: Self.key, create: true)
            try Self.write(300, into: file)
            try file.close()
            var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
            // A byte in the middle of the last page (page 1 is checked on open).
            bytes[bytes.count - 2_000] ^= 0x01
            try bytes.write(to: URL(fileURLWithPath: path))
            let reopened = try Self.open(engine, path, key: Self.key)
            defer { try? reopened.close() }
            #expect(throws: StorageError.corrupt) {
                try Self.expectAllRecordsThrowing(300, in: reopened)
            }
        }
    }

    static func expectAllRecordsThrowing(_ count: Int, in file: any DataFile) throws {
        let store = try file.keyStore("default")
        for index in 0..<count { _ = try store.get(recordKey(index)) }
        _ = try file.byteKeyStore("index").get([0])
    }

    @Test func fileEncryptedWithAnotherCodecIsReportedAsSuch() throws {
        try withTemporaryDirectory { directory in
            let path = StorageEngineKind.sqlite.dataFilePath(in: directory)
            // What an SEE-encrypted file looks like from outside: whole pages of noise.
            var generator = SplitMix64(seed: 41)
            let noise = Data((0..<4 * 4_096).map { _ in UInt8(truncatingIfNeeded: generator.next()) })
            try noise.write(to: URL(fileURLWithPath: path))
            for key in [nil, Self.key] {
                let error = #expect(throws: StorageError.self) { try Self.open(.sqlite, path, key: key) }
                #expect(error?.code == .notADatabaseFile)
                #expect(error?.message.contains("codec") == true, "\(error.map(String.init(describing:)) ?? "")")
            }
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == noise)
        }
    }
}
