import Foundation
import Testing
import TestSupport
import Upgrader

/// `DatabaseFormat.detect(at:)` tells every kind of bundle apart by reading files only.
@Suite(.ownThreads) struct DetectionTests {
    @Test(arguments: ["ios120", "android120", "net120"])
    func aVersion12BundleIsLegacySQLite101(fixture: String) throws {
        let directory = try TemporaryDirectory()
        let bundle = try FixtureCopies.legacyBundle(fixture, into: directory)
        #expect(DatabaseFormat.detect(at: bundle.path) == .legacySQLite(schemaVersion: 101))
    }

    @Test(arguments: ["ios130", "android130", "net130"])
    func aVersion13BundleIsLegacySQLite102(fixture: String) throws {
        let directory = try TemporaryDirectory()
        let bundle = try FixtureCopies.legacyBundle(fixture, into: directory)
        #expect(DatabaseFormat.detect(at: bundle.path) == .legacySQLite(schemaVersion: 102))
    }

    @Test func theDatabaseFileItselfCanBeGiven() throws {
        let directory = try TemporaryDirectory()
        let bundle = try FixtureCopies.legacyBundle("ios130", into: directory)
        let file = bundle.appendingPathComponent("db.sqlite3")
        #expect(DatabaseFormat.detect(at: file.path) == .legacySQLite(schemaVersion: 102))
    }

    @Test func aForestDBBundleIsRecognised() throws {
        let directory = try TemporaryDirectory()
        let bundle = try FixtureCopies.writable("v1/ios120-forestdb/iosdb.cblite2", into: directory)
        #expect(DatabaseFormat.detect(at: bundle.path) == .legacyForestDB)
    }

    @Test func aPre12SingleFileDatabaseIsRecognisedWithItsSchemaVersion() throws {
        let directory = try TemporaryDirectory()
        let folder = try FixtureCopies.writable("v1/android104", into: directory)
        #expect(DatabaseFormat.detect(at: folder.path) == .legacySingleFile(schemaVersion: 16))
        let file = folder.appendingPathComponent("androiddb.cblite")
        #expect(DatabaseFormat.detect(at: file.path) == .legacySingleFile(schemaVersion: 16))
    }

    @Test func realVersion2DatabasesAreCurrent() throws {
        let directory = try TemporaryDirectory()
        let android = try FixtureCopies.writable("v2/android200-sqlite/android-sqlite.cblite2", into: directory)
        let v27 = try FixtureCopies.writable("v2/upgrade_2.7.cblite2", into: directory)
        #expect(DatabaseFormat.detect(at: android.path) == .currentSQLite(schemaVersion: 201))
        #expect(DatabaseFormat.detect(at: v27.path) == .currentSQLite(schemaVersion: 302))
    }

    @Test func aBuiltDatabaseWithA2xVersionIsCurrent() throws {
        let directory = try TemporaryDirectory()
        let builder = try LegacyDatabaseBuilder(in: directory.url, userVersion: 301)
        builder.close()
        #expect(DatabaseFormat.detect(at: builder.bundle.path) == .currentSQLite(schemaVersion: 301))
    }

    @Test func aRocksDBBundleIsCurrent() throws {
        let directory = try TemporaryDirectory()
        let bundle = directory.appending("rocks.cblite2")
        try FileManager.default.createDirectory(at: bundle.appendingPathComponent("db.rocksdb"),
                                                withIntermediateDirectories: true)
        #expect(DatabaseFormat.detect(at: bundle.path) == .currentRocksDB)
    }

    @Test func aMissingPathOrEmptyBundleIsAbsent() throws {
        let directory = try TemporaryDirectory()
        #expect(DatabaseFormat.detect(at: directory.appending("nothing.cblite2").path) == .absent)
        let empty = directory.appending("empty.cblite2")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        #expect(DatabaseFormat.detect(at: empty.path) == .absent)
    }

    @Test(arguments: [0, 16, 99, 150, 200])
    func aSchemaVersionOutsideBothRangesIsUnsupported(version: Int) throws {
        let directory = try TemporaryDirectory()
        let builder = try LegacyDatabaseBuilder(in: directory.url, userVersion: version)
        builder.close()
        #expect(DatabaseFormat.detect(at: builder.bundle.path) == .unsupportedSchema(version: version))
    }

    @Test(arguments: [100, 149])
    func theEndsOfThe1xRangeAreLegacy(version: Int) throws {
        let directory = try TemporaryDirectory()
        let builder = try LegacyDatabaseBuilder(in: directory.url, userVersion: version)
        builder.close()
        #expect(DatabaseFormat.detect(at: builder.bundle.path) == .legacySQLite(schemaVersion: version))
    }

    @Test func randomWholePagesLookEncrypted() throws {
        let directory = try TemporaryDirectory()
        let bundle = try DamagedBundles.encrypted(in: directory)
        #expect(DatabaseFormat.detect(at: bundle.path) == .encrypted)
    }

    @Test func textIsNotADatabase() throws {
        let directory = try TemporaryDirectory()
        let bundle = try DamagedBundles.bundle(in: directory, holding: Array(String(repeating: "not a database\n", count: 300).utf8))
        guard case .unreadable(let reason) = DatabaseFormat.detect(at: bundle.path) else {
            Issue.record("expected unreadable")
            return
        }
        #expect(reason.contains("not a SQLite database"))
    }

    @Test func anEmptyDatabaseFileIsUnreadable() throws {
        let directory = try TemporaryDirectory()
        let bundle = try DamagedBundles.bundle(in: directory, holding: [])
        #expect(DatabaseFormat.detect(at: bundle.path) == .unreadable(reason: "the file is empty"))
    }

    @Test func aTruncatedCopyIsUnreadable() throws {
        let directory = try TemporaryDirectory()
        let bundle = try DamagedBundles.truncated("ios130", toBytes: 8192, in: directory)
        guard case .unreadable(let reason) = DatabaseFormat.detect(at: bundle.path) else {
            Issue.record("expected unreadable")
            return
        }
        #expect(reason.contains("truncated"))
    }

    @Test func aFileShorterThanTheHeaderIsUnreadable() throws {
        let directory = try TemporaryDirectory()
        let bundle = try DamagedBundles.truncated("ios130", toBytes: 40, in: directory)
        guard case .unreadable(let reason) = DatabaseFormat.detect(at: bundle.path) else {
            Issue.record("expected unreadable")
            return
        }
        #expect(reason.contains("truncated"))
    }

    @Test func detectionCreatesNoFileBesideTheDatabase() throws {
        let directory = try TemporaryDirectory()
        let bundle = try FixtureCopies.legacyBundle("android130", into: directory)
        let before = try FileSnapshot(of: bundle)
        _ = DatabaseFormat.detect(at: bundle.path)
        #expect(try FileSnapshot(of: bundle) == before)
    }
}
