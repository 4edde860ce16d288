import BlobStore
import DatabaseConversion
import DatabaseTools
import Foundation
import LiteDatabase
import LiteStorage
import Testing
import TestSupport

/// `EngineConverter` (and `cblite-convert`) copy a database to another engine exactly.
@Suite(.ownThreads) struct EngineConverterTests {
    private func attachments(_ location: DatabaseLocation) throws -> FolderSnapshot {
        try FolderSnapshot(URL(fileURLWithPath: location.bundle.attachmentsPath))
    }

    @Test(arguments: StorageEngineKind.allCases)
    func conversionPreservesEveryRecordCounterIndexAndBlob(engine: StorageEngineKind) throws {
        try withTemporaryDirectory { directory in
            let source = try RichDatabase.make(engine, in: directory)
            let destination = try DatabaseLocation(path: directory.appending("copy.cblite2").path)
            let report = try EngineConverter.convert(source: source, destination: destination, options: .init(verify: true))
            #expect(report.destinationEngine == engine.other.engine.name)
            #expect(destination.engine?.name == engine.other.engine.name)
            let expected = try RichDatabase.contents(source)
            #expect(expected["kv:checkpoints"]?.count == 2)
            #expect(expected["bk:index_by_name"]?.count == 2)
            #expect(try RichDatabase.contents(destination) == expected)
            #expect(try attachments(destination) == attachments(source))
            #expect(try attachments(source).files.count == 1)
            #expect(report.verification?.blobs == 1)
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func convertedDatabaseKeepsUUIDsAndContinuesItsSequence(engine: StorageEngineKind) throws {
        try withTemporaryDirectory { directory in
            let source = try RichDatabase.make(engine, in: directory)
            let destination = try DatabaseLocation(path: directory.appending("copy.cblite2").path)
            try EngineConverter.convert(source: source, destination: destination, options: .init())
            let original = try source.open(.readOnly)
            defer { try? original.close() }
            let copy = try destination.open(.readWrite)
            defer { try? copy.close() }
            #expect(try copy.publicUUID() == original.publicUUID())
            #expect(try copy.privateUUID() == original.privateUUID())
            #expect(try copy.expiration(id: "doc-4") == 4_102_444_800_000)
            let saved = try copy.saveRevision(id: "new", base: nil, policy: .lastWriteWins) { encoder in
                encoder.beginDictionary()
                encoder.endDictionary()
            }
            #expect(saved?.sequence == (try original.lastSequence()) + 1)
        }
    }

    @Test func existingDestinationIsRefusedWithoutForceAndReplacedWithIt() throws {
        try withTemporaryDirectory { directory in
            let source = try RichDatabase.make(.sqlite, in: directory)
            let destination = try DatabaseLocation(path: directory.appending("copy.cblite2").path)
            try FileManager.default.createDirectory(atPath: destination.path, withIntermediateDirectories: true)
            try Data("keep".utf8).write(to: URL(fileURLWithPath: destination.path + "marker"))
            let error = #expect(throws: DatabaseToolsError.self) {
                try EngineConverter.convert(source: source, destination: destination, options: .init())
            }
            #expect(error?.code == .alreadyExists)
            #expect(FileManager.default.fileExists(atPath: destination.path + "marker"))
            try EngineConverter.convert(source: source, destination: destination, options: .init(force: true))
            #expect(!FileManager.default.fileExists(atPath: destination.path + "marker"))
            #expect(destination.engine?.name == "RocksDB")
        }
    }

    /// SQLite's read-only open leaves an empty `-wal` and a `-shm` index beside the file (an
    /// engine behaviour); every byte of data must be unchanged.
    @Test func sourceIsNeverModified() throws {
        try withTemporaryDirectory { directory in
            let source = try RichDatabase.make(.sqlite, in: directory)
            let isSideFile = { (name: String) in name.hasSuffix("-shm") || name.hasSuffix("-wal") }
            let before = try FolderSnapshot(URL(fileURLWithPath: source.path), ignoring: isSideFile)
            try EngineConverter.convert(source: source, destination: try DatabaseLocation(
                path: directory.appending("copy.cblite2").path), options: .init(verify: true))
            #expect(try FolderSnapshot(URL(fileURLWithPath: source.path), ignoring: isSideFile) == before)
            let wal = try? Data(contentsOf: URL(fileURLWithPath: source.path + "db.sqlite3-wal"))
            #expect(wal?.isEmpty ?? true)
        }
    }

    @Test func verifierNamesADifferentRecord() throws {
        try withTemporaryDirectory { directory in
            let source = try RichDatabase.make(.sqlite, in: directory)
            let destination = try DatabaseLocation(path: directory.appending("copy.cblite2").path)
            try EngineConverter.convert(source: source, destination: destination, options: .init())
            let file = try DataFileOpener.open(destination)
            try file.write { txn in
                try #require(try file.keyStore("default").importing).importRecord(
                    Record(key: "doc-7", version: [1], body: [0], sequence: 9_999), in: txn)
            }
            let original = try DataFileOpener.open(source, readOnly: true)
            defer { try? original.close(); try? file.close() }
            let error = #expect(throws: DatabaseToolsError.self) { try StorageVerifier.compare(original, file) }
            #expect(error?.code == .verificationFailed)
            #expect(error?.message.contains("\"default\"") == true)
        }
    }

    @Test func verifierNamesAMissingBlob() throws {
        try withTemporaryDirectory { directory in
            let source = try RichDatabase.make(.rocksdb, in: directory)
            let destination = try DatabaseLocation(path: directory.appending("copy.cblite2").path)
            try EngineConverter.convert(source: source, destination: destination, options: .init())
            let store = BlobStore(directory: URL(fileURLWithPath: destination.bundle.attachmentsPath))
            let key = try #require(try store.allKeys().first)
            try store.delete(key)
            let error = #expect(throws: DatabaseToolsError.self) {
                try StorageVerifier.compareBlobs(BlobStore(directory: URL(fileURLWithPath: source.bundle.attachmentsPath)),
                                                 store)
            }
            #expect(error?.message.contains(key.string) == true)
        }
    }

    @Test func realCouchbaseLite20DatabaseConvertsToRocksDBAndBack() throws {
        try withTemporaryDirectory { directory in
            let bundle = try Fixtures.copy("v2/android200-sqlite/android-sqlite.cblite2", into: directory)
            try makeWritable(bundle)
            let source = try DatabaseLocation(path: bundle.path)
            let rocks = try DatabaseLocation(path: directory.appending("rocks.cblite2").path)
            let back = try DatabaseLocation(path: directory.appending("back.cblite2").path)
            try EngineConverter.convert(source: source, destination: rocks, options: .init(verify: true))
            try EngineConverter.convert(source: rocks, destination: back, options: .init(verify: true))
            #expect(try RichDatabase.contents(back) == RichDatabase.contents(source))
            #expect(try attachments(back) == attachments(source))
            #expect(try attachments(source).files.isEmpty == false)
        }
    }

    @Test func convertExecutableReportsJSONAndRefusesAnExistingDestination() throws {
        try withTemporaryDirectory { directory in
            let source = try RichDatabase.make(.sqlite, in: directory)
            let destination = directory.appending("out.cblite2").path
            let result = try ToolRunner.convert(source.path, destination, "--verify", "--json", "--quiet")
            #expect(result.status == 0, "\(result.stderr)")
            let object = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
            #expect(object["destinationEngine"] as? String == "RocksDB")
            #expect(object["verified"] as? Bool == true)
            #expect(object["blobsCopied"] as? Int == 1)
            #expect(result.stderr.isEmpty)
            let again = try ToolRunner.convert(source.path, destination, "--quiet")
            #expect(again.status != 0)
            #expect(again.stderr.contains("--force"))
            let forced = try ToolRunner.convert(source.path, destination, "--force", "--engine", "sqlite")
            #expect(forced.status == 0, "\(forced.stderr)")
            #expect(forced.stderr.contains("records: 100%"))
            #expect(try DatabaseLocation(path: destination).engine?.name == "SQLite")
        }
    }
}
