import CouchbaseLiteSwift
import CSQLite
import Foundation
import Testing
import TestSupport
import Upgrader
import LiteSupport

/// Opening a 1.x database with the public API upgrades it to 2.x with exactly the contents
/// LiteCore's upgrader test expects, into either engine.
@Suite(.ownThreads) struct LegacyUpgradeTests {
    @Test(arguments: UpgradedFixture.upgradable, StorageEngineKind.allCases)
    func openingA1xDatabaseUpgradesItWithTheExpectedBodiesHistoriesAndBlobs(
        fixture: String, engine: StorageEngineKind
    ) throws {
        let directory = try TemporaryDirectory()
        let copy = try UpgradedFixture(fixture, in: directory)
        try copy.expectUpgradedContents(engine)
    }

    @Test(arguments: StorageEngineKind.allCases)
    func theUpgradedBundleHoldsNo1xFilesAndNoStagingFolderIsLeft(engine: StorageEngineKind) throws {
        let directory = try TemporaryDirectory()
        let copy = try UpgradedFixture("ios130", in: directory)
        let database = try Database(name: copy.name, config: copy.configuration(engine))
        try database.close()
        #expect(DatabaseFormat.detect(at: copy.bundle.path).isUpgradable == false)
        #expect(!FileManager.default.fileExists(atPath: copy.bundle.appendingPathComponent("attachments").path))
        #expect(!FileManager.default.fileExists(atPath: copy.stagingPath))
        #expect(try FileManager.default.contentsOfDirectory(atPath: copy.directory) == [copy.bundle.lastPathComponent])
    }

    @Test func anUpgradedDatabaseReopensWithoutUpgradingAgain() throws {
        let directory = try TemporaryDirectory()
        let copy = try UpgradedFixture("android120", in: directory)
        let first = try Database(name: copy.name, config: copy.configuration(.sqlite))
        let saved = MutableDocument(id: "new").setString("after", forKey: "state")
        try first.saveDocument(saved)
        try first.close()
        let second = try Database(name: copy.name, config: copy.configuration(.sqlite))
        defer { try? second.close() }
        #expect(second.count == 3)
        #expect(second.document(withID: "new")?.string(forKey: "state") == "after")
    }

    @Test(arguments: StorageEngineKind.allCases)
    func declaringNoUpgradeRefusesAsTooOldAndChangesNothing(engine: StorageEngineKind) throws {
        let directory = try TemporaryDirectory()
        let copy = try UpgradedFixture("android120", in: directory)
        let before = try FileSnapshot(of: directory.url)
        let error = #expect(throws: CouchbaseLiteError.self) {
            try Database(name: copy.name, config: copy.configuration(engine, upgrades: false))
        }
        #expect(error?.code == .databaseTooOld)
        #expect(error?.message.contains("1.x") == true)
        #expect(try FileSnapshot(of: directory.url) == before)
    }

    @Test func afterDecliningTheUpgradeOpeningWithUpgradesAllowedUpgrades() throws {
        let directory = try TemporaryDirectory()
        let copy = try UpgradedFixture("android120", in: directory)
        let declined = #expect(throws: CouchbaseLiteError.self) {
            try Database(name: copy.name, config: copy.configuration(.sqlite, upgrades: false))
        }
        #expect(declined?.code == .databaseTooOld)
        try copy.expectUpgradedContents(.sqlite)
    }

    @Test func theUpgradeOptionDefaultsToUpgradingAndIsCopied() {
        let config = DatabaseConfiguration()
        #expect(config.upgradesLegacyDatabases)
        config.upgradesLegacyDatabases = false
        #expect(DatabaseConfiguration(config: config).upgradesLegacyDatabases == false)
    }

    @Test(arguments: StorageEngineKind.allCases)
    func aForestDBBundleIsRefusedOnOpenAndLeftUnchanged(engine: StorageEngineKind) throws {
        let directory = try TemporaryDirectory()
        let bundle = try FixtureCopies.writable("v1/ios120-forestdb/iosdb.cblite2", into: directory)
        let before = try FileSnapshot(of: directory.url)
        let config = DatabaseConfiguration()
        config.directory = directory.path
        config.storageEngine = engine == .sqlite ? .sqlite : .rocksdb
        let error = #expect(throws: CouchbaseLiteError.self) { try Database(name: "iosdb", config: config) }
        #expect(error?.code == .wrongFormat)
        #expect(error?.message.contains("ForestDB") == true)
        #expect(error?.message.contains(bundle.path) == true)
        #expect(try FileSnapshot(of: directory.url) == before)
    }

    @Test(arguments: StorageEngineKind.allCases)
    func aPre12SingleFileDatabaseIsRefusedOnOpenAndLeftUnchanged(engine: StorageEngineKind) throws {
        let directory = try TemporaryDirectory()
        _ = try FixtureCopies.writable("v1/android104/androiddb.cblite", into: directory)
        _ = try FixtureCopies.writable("v1/android104/androiddb", into: directory)
        let before = try FileSnapshot(of: directory.url)
        let config = DatabaseConfiguration()
        config.directory = directory.path
        config.storageEngine = engine == .sqlite ? .sqlite : .rocksdb
        let error = #expect(throws: CouchbaseLiteError.self) { try Database(name: "androiddb", config: config) }
        #expect(error?.code == .databaseTooOld)
        #expect(error?.message.contains("1.2") == true)
        #expect(try FileSnapshot(of: directory.url) == before)
    }

    @Test func aDamaged1xDatabaseIsRefusedOnOpenAsCorruptAndLeftUnchanged() throws {
        let directory = try TemporaryDirectory()
        let copy = try UpgradedFixture("ios120", in: directory)
        let file = copy.bundle.appendingPathComponent("db.sqlite3")
        var bytes = try Data(contentsOf: file)
        // Overwrite the second page (a b-tree page) with garbage, keeping the header intact.
        for index in 4096..<min(8192, bytes.count) { bytes[index] = 0xA5 }
        try bytes.write(to: file)
        let before = try FileSnapshot(of: directory.url)
        let error = #expect(throws: CouchbaseLiteError.self) {
            try Database(name: copy.name, config: copy.configuration(.sqlite))
        }
        #expect(error?.code == .corruptData)
        #expect(try FileSnapshot(of: directory.url) == before)
    }

    @Test func aDocumentWithAnInvalidBodyIsNamedAndNothingChanges() throws {
        let directory = try TemporaryDirectory()
        let builder = try LegacyDatabaseBuilder(in: directory.url, name: "legacy")
        try builder.addSimpleDocument("good")
        try builder.addSimpleDocument("broken", json: #"{"unterminated"#)
        builder.close()
        let before = try FileSnapshot(of: directory.url)
        let config = DatabaseConfiguration()
        config.directory = directory.path
        let error = #expect(throws: CouchbaseLiteError.self) { try Database(name: "legacy", config: config) }
        #expect(error?.code == .corruptRevisionData)
        #expect(error?.message.contains("\"broken\"") == true)
        #expect(try FileSnapshot(of: directory.url) == before)
    }

    @Test func aDocumentWithAnInvalidRevisionIDIsNamedAndNothingChanges() throws {
        let directory = try TemporaryDirectory()
        let builder = try LegacyDatabaseBuilder(in: directory.url, name: "legacy")
        try builder.addSimpleDocument("good")
        try builder.addSimpleDocument("badrev", revID: "1-xyz")
        builder.close()
        let before = try FileSnapshot(of: directory.url)
        let config = DatabaseConfiguration()
        config.directory = directory.path
        let error = #expect(throws: CouchbaseLiteError.self) { try Database(name: "legacy", config: config) }
        #expect(error?.code == .badRevisionID)
        #expect(error?.message.contains("\"badrev\"") == true)
        #expect(try FileSnapshot(of: directory.url) == before)
    }

    @Test func copyingA1xBundleUpgradesTheCopyAndLeavesTheSourceUntouched() throws {
        let directory = try TemporaryDirectory()
        let source = try UpgradedFixture("android130", in: directory)
        let before = try FileSnapshot(of: source.bundle)
        let config = DatabaseConfiguration()
        config.directory = directory.appending("copies").path
        try Database.copy(fromPath: source.bundle.path, toDatabase: "copied", withConfig: config)
        #expect(try FileSnapshot(of: source.bundle) == before)
        let database = try Database(name: "copied", config: config)
        defer { try? database.close() }
        #expect(database.count == 2)
        #expect(database.document(withID: "doc1")?.dictionary(forKey: "_attachments")?
            .blob(forKey: "attach1")?.content?.count == 7)
    }

    @Test func aBundleWhose2xCreationStoppedBeforeItsSchemaStillOpens() throws {
        let directory = try TemporaryDirectory()
        let bundle = directory.appending("fresh.cblite2")
        try FileManager.default.createDirectory(at: bundle, withIntermediateDirectories: true)
        var connection: OpaquePointer?
        _ = sqlite3_open(bundle.appendingPathComponent("db.sqlite3").path, &connection)
        _ = sqlite3_exec(connection, "PRAGMA journal_mode = WAL", nil, nil, nil)
        sqlite3_close(connection)
        #expect(DatabaseFormat.detect(at: bundle.path) == .unsupportedSchema(version: 0))
        let config = DatabaseConfiguration()
        config.directory = directory.path
        let database = try Database(name: "fresh", config: config)
        defer { try? database.close() }
        try database.saveDocument(MutableDocument(id: "a"))
        #expect(database.count == 1)
    }

    @Test func severalOpensAtOnceUpgradeOnceAndAllSeeTheDocuments() throws {
        let directory = try TemporaryDirectory()
        let copy = try UpgradedFixture("net120", in: directory)
        let config = copy.configuration(.sqlite)
        let counts = Locked<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            let outcome: String
            do {
                let database = try Database(name: copy.name, config: config)
                defer { try? database.close() }
                outcome = "\(database.count)"
            } catch {
                outcome = "\(error)"
            }
            counts.withLock { $0.append(outcome) }
        }
        #expect(counts.withLock { $0 } == ["2", "2", "2", "2"])
        try copy.expectUpgradedContents(.sqlite)
    }
}
