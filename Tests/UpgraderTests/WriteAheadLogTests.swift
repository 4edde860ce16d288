import Foundation
import Testing
import TestSupport
import Upgrader

/// Data a 1.x app committed that is still only in `db.sqlite3-wal` is read completely.
@Suite(.ownThreads) struct WriteAheadLogTests {
    /// A 1.x database whose schema and documents are all in its WAL, the writer still open.
    private func walOnlyDatabase(in directory: TemporaryDirectory, documents: Int) throws -> LegacyDatabaseBuilder {
        let builder = try LegacyDatabaseBuilder(in: directory.url, userVersion: 102, walOnly: true)
        for index in 1...documents {
            let key = try builder.addDocument(String(format: "doc-%03d", index))
            let first = try builder.addRevision(document: key, revID: "1-" + String(repeating: "a", count: 32),
                                                current: false, json: #"{"n":0}"#)
            try builder.addRevision(document: key, revID: "2-" + String(repeating: "b", count: 32),
                                    parent: first, current: true, json: #"{"n":\#(index)}"#)
        }
        return builder
    }

    private func mainFileUserVersion(_ bundle: URL) throws -> Int {
        let bytes = Array(try Data(contentsOf: bundle.appendingPathComponent("db.sqlite3")))
        guard bytes.count >= 64 else { return 0 }
        return bytes[60..<64].reduce(0) { $0 << 8 | Int($1) }
    }

    @Test func theDatabaseFileAloneDoesNotHoldTheData() throws {
        let directory = try TemporaryDirectory()
        let builder = try walOnlyDatabase(in: directory, documents: 3)
        defer { builder.close() }
        let wal = builder.bundle.appendingPathComponent("db.sqlite3-wal")
        #expect(try mainFileUserVersion(builder.bundle) == 0)
        #expect((try FileManager.default.attributesOfItem(atPath: wal.path)[.size] as? Int ?? 0) > 0)
    }

    @Test func detectionReadsTheSchemaVersionFromTheWAL() throws {
        let directory = try TemporaryDirectory()
        let builder = try walOnlyDatabase(in: directory, documents: 3)
        defer { builder.close() }
        #expect(DatabaseFormat.detect(at: builder.bundle.path) == .legacySQLite(schemaVersion: 102))
    }

    @Test func everyDocumentOnlyInTheWALIsRead() throws {
        let directory = try TemporaryDirectory()
        let builder = try walOnlyDatabase(in: directory, documents: 50)
        defer { builder.close() }
        let reader = try LegacyDatabaseReader(bundlePath: builder.bundle.path)
        defer { reader.close() }
        let documents = try reader.readAllDocuments()
        #expect(documents.count == 50)
        #expect(documents.map(\.id) == (1...50).map { String(format: "doc-%03d", $0) })
        #expect(documents.map { String(decoding: $0.body, as: UTF8.self) } == (1...50).map { #"{"n":\#($0)}"# })
        #expect(documents.allSatisfy { $0.history.map(\.generation) == [2, 1] })
    }

    @Test func readingCreatesAndChangesNothingBesideTheOriginal() throws {
        let directory = try TemporaryDirectory()
        let builder = try walOnlyDatabase(in: directory, documents: 5)
        defer { builder.close() }
        let before = try FileSnapshot(of: builder.bundle)
        let reader = try LegacyDatabaseReader(bundlePath: builder.bundle.path)
        _ = try reader.readAllDocuments()
        reader.close()
        #expect(try FileSnapshot(of: builder.bundle) == before)
    }

    @Test func aCopiedWALWithoutItsSharedMemoryFileIsRead() throws {
        let source = try TemporaryDirectory()
        let builder = try walOnlyDatabase(in: source, documents: 4)
        defer { builder.close() }
        // What a backup of a live 1.x app looks like: db.sqlite3 and its -wal, no -shm.
        let target = try TemporaryDirectory()
        let bundle = target.appending("copied.cblite2")
        try FileManager.default.createDirectory(at: bundle, withIntermediateDirectories: true)
        for name in ["db.sqlite3", "db.sqlite3-wal"] {
            try FileManager.default.copyItem(at: builder.bundle.appendingPathComponent(name),
                                             to: bundle.appendingPathComponent(name))
        }
        let reader = try LegacyDatabaseReader(bundlePath: bundle.path)
        defer { reader.close() }
        #expect(try reader.readAllDocuments().count == 4)
        #expect(!FileManager.default.fileExists(atPath: bundle.appendingPathComponent("db.sqlite3-shm").path))
    }

    /// A copy of a WAL-only database (main file and `-wal`), the WAL changed by `damage`.
    private func copyWithDamagedWAL(_ damage: (inout [UInt8]) -> Void) throws -> (TemporaryDirectory, URL) {
        let source = try TemporaryDirectory()
        let builder = try walOnlyDatabase(in: source, documents: 20)
        defer { builder.close() }
        let target = try TemporaryDirectory()
        let bundle = target.appending("damaged-wal.cblite2")
        try FileManager.default.createDirectory(at: bundle, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: builder.bundle.appendingPathComponent("db.sqlite3"),
                                         to: bundle.appendingPathComponent("db.sqlite3"))
        var wal = Array(try Data(contentsOf: builder.bundle.appendingPathComponent("db.sqlite3-wal")))
        damage(&wal)
        try Data(wal).write(to: bundle.appendingPathComponent("db.sqlite3-wal"))
        return (target, bundle)
    }

    @Test func aTornLastFrameLeavesTheEarlierCommittedVersionVisible() throws {
        let (directory, bundle) = try copyWithDamagedWAL { wal in wal.removeLast(100) }
        #expect(DatabaseFormat.detect(at: bundle.path) == .legacySQLite(schemaVersion: 102))
        withExtendedLifetime(directory) {}
    }

    @Test func aWALWithABadHeaderChecksumIsIgnored() throws {
        let (directory, bundle) = try copyWithDamagedWAL { wal in wal[24] ^= 0xFF }
        // The main file alone still has the header SQLite wrote when it switched to WAL mode.
        #expect(DatabaseFormat.detect(at: bundle.path) == .unsupportedSchema(version: 0))
        withExtendedLifetime(directory) {}
    }

    @Test func aFrameWithABadChecksumEndsTheValidLog() throws {
        // Damaging the first frame's page invalidates it and every frame after it.
        let (directory, bundle) = try copyWithDamagedWAL { wal in wal[32 + 24 + 100] ^= 0xFF }
        #expect(DatabaseFormat.detect(at: bundle.path) == .unsupportedSchema(version: 0))
        withExtendedLifetime(directory) {}
    }
}
