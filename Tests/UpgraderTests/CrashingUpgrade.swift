import Foundation
import LiteDatabase
import TestSupport
import Upgrader
#if canImport(Glibc)
import Glibc
#endif

/// Runs an upgrade in a child process (this test executable again, running only
/// `crashingUpgradeChild`) whose fault hook ends the process abruptly at a chosen step, as a
/// crash or a kill would: no cleanup code runs.
enum CrashingUpgrade {
    /// The exit status the hook ends the child with (distinct from a normal exit or a failure).
    static let crashStatus: Int32 = 77

    private enum Variable {
        static let step = "CBL_UPGRADE_CRASH_STEP"
        static let directory = "CBL_UPGRADE_CRASH_DIRECTORY"
        static let name = "CBL_UPGRADE_CRASH_NAME"
        static let engine = "CBL_UPGRADE_CRASH_ENGINE"
    }

    /// True in the child process.
    static var isChild: Bool { ProcessInfo.processInfo.environment[Variable.step] != nil }

    /// Starts the child for `bundle` and waits for it; returns its exit status.
    static func run(bundle: DatabaseBundle, engine: StorageEngineKind, crashAt step: UpgradeStep) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        process.arguments = ["--testing-library", "swift-testing", "--filter", "crashingUpgradeChild"]
        var environment = ProcessInfo.processInfo.environment
        environment[Variable.step] = step.rawValue
        environment[Variable.directory] = bundle.directory
        environment[Variable.name] = bundle.name
        environment[Variable.engine] = engine.rawValue
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// The child's work: the upgrade, with a hook that `_exit`s at the step.
    static func runInChild() throws {
        let environment = ProcessInfo.processInfo.environment
        guard let stepName = environment[Variable.step], let step = UpgradeStep(rawValue: stepName),
              let directory = environment[Variable.directory], let name = environment[Variable.name],
              let engine = environment[Variable.engine].flatMap(StorageEngineKind.init(rawValue:)) else { return }
        let upgrader = LegacyUpgrader(registry: UpgradedFixture.registry, engineName: engine.engine.name) {
            if $0 == step { _exit(crashStatus) }
        }
        try upgrader.upgradeInPlace(DatabaseBundle(name: name, directory: directory))
    }
}
