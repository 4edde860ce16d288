import Foundation
import LiteStorage
import LiteSupport
import RocksDBStorage
import Testing
import TestSupport

/// The RocksDB engine with an encryption key: every file RocksDB writes is encrypted, the
/// right key reads everything back, and a missing or wrong key (or a key for a plaintext
/// folder) is refused before RocksDB touches the folder.
@Suite(.ownThreads) struct RocksDBEncryptionTests {
    static let key = AES256Key(bytes: (0..<32).map { UInt8($0 * 3 + 1) })
    static let wrongKey = AES256Key(bytes: [UInt8](repeating: 0x5A, count: 32))
    static let recordCount = 3000

    static func documentID(_ index: Int) -> String { "confidential-doc-\(index)" }
    static func body(_ index: Int) -> [UInt8] { Array("secret body text number \(index) of the test".utf8) }

    /// Writes the records in several transactions, compacts half-way (so that table files and
    /// a manifest edit exist beside the write-ahead log), closes, and returns the folder.
    static func makeDatabase(in directory: TemporaryDirectory, key: AES256Key?) throws -> String {
        let path = RocksDBEngine().dataFilePath(inBundle: directory.path)
        let file = try RocksDBEngine().open(at: path, options: DataFileOptions(create: true, encryptionKey: key))
        let store = try file.keyStore("default")
        for batch in stride(from: 0, to: recordCount, by: 500) {
            try file.write { txn in
                for index in batch..<batch + 500 {
                    try store.set(Record(key: documentID(index), version: Array("1-abc".utf8), body: body(index)),
                                  ifSequence: 0, in: txn)
                }
            }
            if batch == recordCount / 2 { try file.compact() }
        }
        try file.close()
        return path
    }

    static func open(_ path: String, key: AES256Key?, readOnly: Bool = false) throws -> any DataFile {
        try RocksDBEngine().open(at: path, options: DataFileOptions(readOnly: readOnly, encryptionKey: key))
    }

    /// The names of the folder's files that contain any of `needles`.
    static func filesContaining(_ needles: [String], in path: String) throws -> [String] {
        let snapshot = try FolderSnapshot(URL(fileURLWithPath: path))
        return snapshot.files.compactMap { name, bytes in
            needles.contains { bytes.range(of: Data($0.utf8)) != nil } ? name : nil
        }.sorted()
    }

    static let needles = ["confidential-doc", "secret body text", "1-abc"]

    @Test func noPlaintextReachesAnyFile() throws {
        let directory = try TemporaryDirectory()
        let path = try Self.makeDatabase(in: directory, key: Self.key)
        let files = try FolderSnapshot(URL(fileURLWithPath: path)).files
        #expect(files.keys.contains { $0.hasSuffix(".sst") } && files.keys.contains { $0.hasSuffix(".log") },
                "tables and a write-ahead log were written: \(files.keys.sorted())")
        #expect(try Self.filesContaining(Self.needles, in: path) == [])
        // Every file with content starts with the encrypted environment's prefix (LOCK is empty).
        for (name, bytes) in files where !bytes.isEmpty {
            #expect(bytes.starts(with: Array("CBLRDBEN".utf8)), "\(name) is not encrypted")
        }
    }

    /// The scan above sees plaintext where there is some: the same records without a key.
    @Test func theScanFindsThePlaintextOfAPlainDatabase() throws {
        let directory = try TemporaryDirectory()
        let path = try Self.makeDatabase(in: directory, key: nil)
        #expect(try Self.filesContaining(Self.needles, in: path) != [])
    }

    @Test(arguments: [false, true])
    func theRightKeyReadsEveryRecord(readOnly: Bool) throws {
        let directory = try TemporaryDirectory()
        let path = try Self.makeDatabase(in: directory, key: Self.key)
        let file = try Self.open(path, key: Self.key, readOnly: readOnly)
        defer { try? file.close() }
        let store = try file.keyStore("default")
        for index in 0..<Self.recordCount {
            let record = try store.get(Self.documentID(index))
            #expect(record?.body == Self.body(index))
        }
        #expect(try file.checkIntegrity() == [])
    }

    @Test func writesAfterReopeningAreEncryptedToo() throws {
        let directory = try TemporaryDirectory()
        let path = try Self.makeDatabase(in: directory, key: Self.key)
        let file = try Self.open(path, key: Self.key)
        let store = try file.keyStore("default")
        try file.write { txn in
            _ = try store.set(Record(key: "confidential-doc-late", body: Array("secret body text, late".utf8)),
                              ifSequence: 0, in: txn)
        }
        try file.compact()
        try file.close()
        #expect(try Self.filesContaining(Self.needles, in: path) == [])
        let reopened = try Self.open(path, key: Self.key)
        defer { try? reopened.close() }
        #expect(try reopened.keyStore("default").get("confidential-doc-late")?.body == Array("secret body text, late".utf8))
        #expect(try reopened.keyStore("default").get(Self.documentID(7))?.body == Self.body(7))
    }

    /// What each refused open must leave: the error's code and words, and every byte as it was.
    static func expectRefusal(_ path: String, key: AES256Key?, readOnly: Bool = false, saying words: String) throws {
        let before = try FolderSnapshot(URL(fileURLWithPath: path))
        let error = #expect(throws: StorageError.self) { try Self.open(path, key: key, readOnly: readOnly) }
        #expect(error?.code == .notADatabaseFile, "\(error.map { "\($0)" } ?? "no error")")
        #expect(error?.message.contains(words) == true, "\(error.map { "\($0)" } ?? "no error")")
        #expect(error?.message.contains(path) == true, "the message names the folder")
        #expect(try FolderSnapshot(URL(fileURLWithPath: path)) == before)
    }

    @Test(arguments: [false, true])
    func aWrongKeyIsRefusedAndChangesNothing(readOnly: Bool) throws {
        let directory = try TemporaryDirectory()
        let path = try Self.makeDatabase(in: directory, key: Self.key)
        try Self.expectRefusal(path, key: Self.wrongKey, readOnly: readOnly, saying: "wrong")
        // And the right key still opens it afterwards.
        let file = try Self.open(path, key: Self.key)
        #expect(try file.keyStore("default").get(Self.documentID(0))?.body == Self.body(0))
        try file.close()
    }

    @Test(arguments: [false, true])
    func aMissingKeyIsRefusedAndChangesNothing(readOnly: Bool) throws {
        let directory = try TemporaryDirectory()
        let path = try Self.makeDatabase(in: directory, key: Self.key)
        try Self.expectRefusal(path, key: nil, readOnly: readOnly, saying: "is encrypted")
    }

    @Test(arguments: [false, true])
    func aKeyForAPlaintextFolderIsRefusedAndChangesNothing(readOnly: Bool) throws {
        let directory = try TemporaryDirectory()
        let path = try Self.makeDatabase(in: directory, key: nil)
        try Self.expectRefusal(path, key: Self.key, readOnly: readOnly, saying: "not encrypted")
    }

    @Test func anEncryptedFolderIsRecognisedAsRocksDB() throws {
        let directory = try TemporaryDirectory()
        let path = try Self.makeDatabase(in: directory, key: Self.key)
        #expect(RocksDBEngine().recognises(fileAt: path))
    }

    @Test func aSecondOpenInTheProcessNeedsTheSameKey() throws {
        let directory = try TemporaryDirectory()
        let path = try Self.makeDatabase(in: directory, key: Self.key)
        let first = try Self.open(path, key: Self.key)
        defer { try? first.close() }
        let second = try Self.open(path, key: Self.key)
        #expect(try second.keyStore("default").get(Self.documentID(1))?.body == Self.body(1))
        try second.close()
        #expect(throws: StorageError.self) { try Self.open(path, key: Self.wrongKey) }
        #expect(throws: StorageError.self) { try Self.open(path, key: nil) }
    }
}
