import Foundation
import LiteDatabase
import Testing
import TestSupport
@testable import Upgrader

/// The 1.x original survives an upgrade that fails or whose process dies at any step, and the
/// next open upgrades it (again) with the right data.
@Suite(.ownThreads) struct UpgradeCrashTests {
    /// The steps before the new database replaces the original under its name.
    static let stepsBeforeSwap: [UpgradeStep] = [.readerOpened, .firstDocumentCopied, .documentsCopied,
                                                 .committed, .verified]

    private struct InjectedFault: Error {}

    @Test(arguments: stepsBeforeSwap, StorageEngineKind.allCases)
    func aFailureBeforeTheSwapLeavesTheOriginalAndNoStagingFolder(step: UpgradeStep, engine: StorageEngineKind) throws {
        let directory = try TemporaryDirectory()
        let copy = try UpgradedFixture("ios120", in: directory)
        let before = try FileSnapshot(of: directory.url)
        let upgrader = LegacyUpgrader(registry: UpgradedFixture.registry, engineName: engine.engine.name) {
            if $0 == step { throw InjectedFault() }
        }
        let error = #expect(throws: UpgraderError.self) { try upgrader.upgradeInPlace(copy.databaseBundle) }
        #expect(error?.code == .upgradeFailed)
        #expect(error?.underlying is InjectedFault)
        #expect(try FileSnapshot(of: directory.url) == before)
        try copy.expectUpgradedContents(engine)
    }

    @Test(arguments: UpgradeStep.allCases, StorageEngineKind.allCases)
    func aProcessKilledAtAnyStepLeavesTheOriginalOrTheVerifiedUpgradeAndTheNextOpenSucceeds(
        step: UpgradeStep, engine: StorageEngineKind
    ) throws {
        let directory = try TemporaryDirectory()
        let copy = try UpgradedFixture("android130", in: directory)
        let original = try FileSnapshot(of: copy.bundle)

        let status = try CrashingUpgrade.run(bundle: copy.databaseBundle, engine: engine, crashAt: step)
        #expect(status == CrashingUpgrade.crashStatus, "the child must die at \(step), not finish")

        if Self.stepsBeforeSwap.contains(step) {
            #expect(try FileSnapshot(of: copy.bundle) == original, "original changed by a crash at \(step)")
        } else if step == .swapped {
            // The exchange put the original in the staging folder, whole.
            let parked = URL(fileURLWithPath: copy.stagingPath).appendingPathComponent(copy.bundle.lastPathComponent)
            #expect(try FileSnapshot(of: parked) == original)
        }
        try copy.expectUpgradedContents(engine)
        #expect(!FileManager.default.fileExists(atPath: copy.stagingPath))
    }

    @Test(arguments: [UpgradeStep.firstDocumentCopied, .documentsCopied, .verified, .swapped],
          StorageEngineKind.allCases)
    func aProcessKilledWithSIGKILLMidUpgradeLeavesADatabaseTheNextOpenUpgradesCorrectly(
        step: UpgradeStep, engine: StorageEngineKind
    ) throws {
        let directory = try TemporaryDirectory()
        let copy = try UpgradedFixture("ios130", in: directory)
        let original = try FileSnapshot(of: copy.bundle)
        let killed = try CrashingUpgrade.runAndKill(bundle: copy.databaseBundle, engine: engine, at: step)
        #expect(killed, "the child must reach \(step) and be killed there")
        if Self.stepsBeforeSwap.contains(step) {
            #expect(try FileSnapshot(of: copy.bundle) == original)
        }
        try copy.expectUpgradedContents(engine)
        #expect(!FileManager.default.fileExists(atPath: copy.stagingPath))
    }

    /// Runs in the child process only: upgrades the bundle named by the environment and ends
    /// the process at the named step.
    @Test(.enabled(if: CrashingUpgrade.isChild))
    func crashingUpgradeChild() throws {
        try CrashingUpgrade.runInChild()
        Issue.record("the upgrade finished instead of dying at its step")
    }

    @Test func theCheckRejectsANewDatabaseThatLostADocument() throws {
        let directory = try TemporaryDirectory()
        let copy = try UpgradedFixture("ios120", in: directory)
        let before = try FileSnapshot(of: directory.url)
        let staged = DatabaseBundle(name: copy.name, directory: copy.stagingPath)
        let upgrader = LegacyUpgrader(registry: UpgradedFixture.registry, engineName: nil) { step in
            guard step == .committed else { return }
            let core = try DatabaseCore(bundle: staged, registry: UpgradedFixture.registry, engineName: nil, create: false)
            defer { try? core.close() }
            try core.purgeDocument(id: "doc2")
        }
        let error = #expect(throws: UpgraderError.self) { try upgrader.upgradeInPlace(copy.databaseBundle) }
        #expect(error?.code == .upgradeFailed)
        #expect(error?.message.contains("failed its check") == true)
        #expect(try FileSnapshot(of: directory.url) == before)
    }

    @Test func theCheckRejectsANewDatabaseThatLostABlob() throws {
        let directory = try TemporaryDirectory()
        let copy = try UpgradedFixture("net120", in: directory)
        let before = try FileSnapshot(of: directory.url)
        let staged = DatabaseBundle(name: copy.name, directory: copy.stagingPath)
        let upgrader = LegacyUpgrader(registry: UpgradedFixture.registry, engineName: nil) { step in
            guard step == .committed else { return }
            let blobs = URL(fileURLWithPath: staged.attachmentsPath)
            for file in try FileManager.default.contentsOfDirectory(atPath: blobs.path).prefix(1) {
                try FileManager.default.removeItem(at: blobs.appendingPathComponent(file))
            }
        }
        let error = #expect(throws: UpgraderError.self) { try upgrader.upgradeInPlace(copy.databaseBundle) }
        #expect(error?.code == .upgradeFailed)
        #expect(error?.message.contains("blob store") == true)
        #expect(try FileSnapshot(of: directory.url) == before)
    }

    @Test func recoveryInstallsAVerifiedBuildWhenTheOriginalWasAlreadyMovedAside() throws {
        let directory = try TemporaryDirectory()
        let target = directory.appending("db.cblite2").path
        let staging = target + LegacyUpgrader.stagingSuffix
        try makeFolder(staging + "/db.cblite2", holding: "new")
        try makeFolder(staging + "/" + BundleSwap.originalName, holding: "old")
        _ = FileManager.default.createFile(atPath: staging + "/" + BundleSwap.verifiedMarker, contents: Data())
        try LegacyUpgrader.finishInterruptedUpgrade(at: target + "/")
        #expect(try String(contentsOfFile: target + "/content", encoding: .utf8) == "new")
        #expect(!FileManager.default.fileExists(atPath: staging))
    }

    @Test func recoveryPutsTheOriginalBackWhenNoVerifiedBuildExists() throws {
        let directory = try TemporaryDirectory()
        let target = directory.appending("db.cblite2").path
        let staging = target + LegacyUpgrader.stagingSuffix
        try makeFolder(staging + "/db.cblite2", holding: "partial")
        try makeFolder(staging + "/" + BundleSwap.originalName, holding: "old")
        try LegacyUpgrader.finishInterruptedUpgrade(at: target)
        #expect(try String(contentsOfFile: target + "/content", encoding: .utf8) == "old")
        #expect(!FileManager.default.fileExists(atPath: staging))
    }

    @Test func recoveryRemovesAPartialBuildAndKeepsTheDatabaseInPlace() throws {
        let directory = try TemporaryDirectory()
        let target = directory.appending("db.cblite2").path
        try makeFolder(target, holding: "old")
        try makeFolder(target + LegacyUpgrader.stagingSuffix + "/db.cblite2", holding: "partial")
        try LegacyUpgrader.finishInterruptedUpgrade(at: target)
        #expect(try String(contentsOfFile: target + "/content", encoding: .utf8) == "old")
        #expect(!FileManager.default.fileExists(atPath: target + LegacyUpgrader.stagingSuffix))
    }

    private func makeFolder(_ path: String, holding content: String) throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        try content.write(toFile: path + "/content", atomically: false, encoding: .utf8)
    }
}
