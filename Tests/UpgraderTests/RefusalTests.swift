import Foundation
import Testing
import TestSupport
import Upgrader

/// What cannot be upgraded is refused with an error a person can act on, and left untouched.
@Suite(.ownThreads) struct RefusalTests {
    private func refusal(at path: String) -> UpgraderError? {
        do {
            _ = try LegacyDatabaseReader(bundlePath: path)
            return nil
        } catch let error as UpgraderError {
            return error
        } catch {
            Issue.record("unexpected error type: \(error)")
            return nil
        }
    }

    @Test func aForestDBBundleIsRefusedNamingForestDBAndTheWayOut() throws {
        let directory = try TemporaryDirectory()
        let bundle = try FixtureCopies.writable("v1/ios120-forestdb/iosdb.cblite2", into: directory)
        let error = try #require(refusal(at: bundle.path))
        #expect(error.code == .forestDB)
        #expect(error.message.contains("ForestDB"))
        #expect(error.message.contains("SQLite"))
        #expect(error.message.contains(bundle.path))
    }

    @Test func aForestDBBundleIsUnchangedAfterTheRefusal() throws {
        let directory = try TemporaryDirectory()
        let bundle = try FixtureCopies.writable("v1/ios120-forestdb/iosdb.cblite2", into: directory)
        let before = try FileSnapshot(of: bundle)
        _ = refusal(at: bundle.path)
        #expect(try FileSnapshot(of: bundle) == before)
    }

    @Test func aPre12SingleFileDatabaseIsRefusedAsTooOld() throws {
        let directory = try TemporaryDirectory()
        let folder = try FixtureCopies.writable("v1/android104", into: directory)
        for path in [folder.path, folder.appendingPathComponent("androiddb.cblite").path] {
            let error = try #require(refusal(at: path))
            #expect(error.code == .databaseTooOld)
            #expect(error.schemaVersion == 16)
            #expect(error.message.contains("1.2"))
        }
    }

    @Test func aPre12SingleFileDatabaseIsUnchangedAfterTheRefusal() throws {
        let directory = try TemporaryDirectory()
        let folder = try FixtureCopies.writable("v1/android104", into: directory)
        let before = try FileSnapshot(of: folder)
        _ = refusal(at: folder.path)
        _ = refusal(at: folder.appendingPathComponent("androiddb.cblite").path)
        #expect(try FileSnapshot(of: folder) == before)
    }

    @Test func anEncryptedDatabaseIsRefusedSayingDecryptWith1xFirst() throws {
        let directory = try TemporaryDirectory()
        let bundle = try DamagedBundles.encrypted(in: directory)
        let before = try FileSnapshot(of: bundle)
        let error = try #require(refusal(at: bundle.path))
        #expect(error.code == .encrypted)
        #expect(error.message.contains("decrypt"))
        #expect(try FileSnapshot(of: bundle) == before)
    }

    @Test(arguments: [16, 99])
    func aSchemaVersionBelow100IsRefusedAsTooOldNamingTheVersion(version: Int) throws {
        let directory = try TemporaryDirectory()
        let builder = try LegacyDatabaseBuilder(in: directory.url, userVersion: version)
        builder.close()
        let error = try #require(refusal(at: builder.bundle.path))
        #expect(error.code == .databaseTooOld)
        #expect(error.schemaVersion == version)
        #expect(error.message.contains("schema version \(version)"))
    }

    @Test(arguments: [150, 200])
    func aSchemaVersionAbove149IsRefusedNamingTheVersion(version: Int) throws {
        let directory = try TemporaryDirectory()
        let builder = try LegacyDatabaseBuilder(in: directory.url, userVersion: version)
        builder.close()
        let error = try #require(refusal(at: builder.bundle.path))
        #expect(error.code == .unsupportedSchemaVersion)
        #expect(error.message.contains("schema version \(version)"))
    }

    @Test func aVersion2DatabaseIsNotReadAsLegacy() throws {
        let directory = try TemporaryDirectory()
        let bundle = try FixtureCopies.writable("v2/upgrade_2.7.cblite2", into: directory)
        let error = try #require(refusal(at: bundle.path))
        #expect(error.code == .alreadyUpgraded)
    }

    @Test func aMissingBundleIsRefused() throws {
        let directory = try TemporaryDirectory()
        let error = try #require(refusal(at: directory.appending("missing.cblite2").path))
        #expect(error.code == .notADatabase)
    }

    @Test func aTruncatedCopyIsRefusedAndUnchanged() throws {
        let directory = try TemporaryDirectory()
        let bundle = try DamagedBundles.truncated("ios130", toBytes: 8192, in: directory)
        let before = try FileSnapshot(of: bundle)
        let error = try #require(refusal(at: bundle.path))
        #expect(error.code == .notADatabase)
        #expect(error.message.contains("truncated"))
        #expect(try FileSnapshot(of: bundle) == before)
    }

    @Test(arguments: [UInt8(0x00), 0xFF, 0x5A])
    func aCopyWithDamagedPagesIsRefusedAsCorrupt(fill: UInt8) throws {
        let directory = try TemporaryDirectory()
        let bundle = try DamagedBundles.overwritten("ios130", fill: fill, in: directory)
        let before = try FileSnapshot(of: bundle)
        let error = try #require(refusal(at: bundle.path))
        #expect(error.code == .corrupt)
        #expect(error.message.contains(bundle.path))
        #expect(try FileSnapshot(of: bundle) == before)
    }

    @Test func aSQLiteFileWithoutThe1xTablesIsRefusedAsCorrupt() throws {
        let directory = try TemporaryDirectory()
        let builder = try LegacyDatabaseBuilder(in: directory.url, userVersion: 102)
        try builder.execute("DROP TABLE revs")
        builder.close()
        let error = try #require(refusal(at: builder.bundle.path))
        #expect(error.code == .corrupt)
        #expect(error.message.contains("revs"))
    }

    @Test func refusalsLeaveNoTemporaryCopyBehind() throws {
        let directory = try TemporaryDirectory()
        let scratch = try TemporaryDirectory()
        let bundle = try DamagedBundles.overwritten("ios130", fill: 0xFF, in: directory)
        #expect(throws: UpgraderError.self) {
            try LegacyDatabaseReader(bundlePath: bundle.path, temporaryDirectory: scratch.url)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path).isEmpty)
    }

    @Test func decliningTheUpgradeOfA1xDatabaseIsDatabaseTooOld() throws {
        let directory = try TemporaryDirectory()
        let bundle = try FixtureCopies.legacyBundle("android120", into: directory)
        let error = try #require(DatabaseFormat.detect(at: bundle.path).upgradeDeclined(path: bundle.path))
        #expect(error.code == .databaseTooOld)
        #expect(error.errorCode.rawValue == 27)
        #expect(error.schemaVersion == 101)
        #expect(DatabaseFormat.currentSQLite(schemaVersion: 302).upgradeDeclined(path: bundle.path) == nil)
    }
}
