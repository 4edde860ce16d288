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
        static let mode = "CBL_UPGRADE_CRASH_MODE"
    }

    /// What a child stopped for SIGKILL prints, then waits to be killed.
    static let pausedToken = "CBL-UPGRADE-CHILD-PAUSED"

    /// True in the child process.
    static var isChild: Bool { ProcessInfo.processInfo.environment[Variable.step] != nil }

    /// Starts the child for `bundle` and waits for it; returns its exit status.
    static func run(bundle: DatabaseBundle, engine: StorageEngineKind, crashAt step: UpgradeStep) throws -> Int32 {
        let process = makeChild(bundle: bundle, engine: engine, step: step, mode: "exit")
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// Starts the child, which stops at `step`; kills it there with SIGKILL. Returns whether it
    /// reached the step and died of the signal.
    static func runAndKill(bundle: DatabaseBundle, engine: StorageEngineKind, at step: UpgradeStep) throws -> Bool {
        let process = makeChild(bundle: bundle, engine: engine, step: step, mode: "pause")
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        // Blocking reads: the child prints the token at the step; end of file means it died
        // (or finished) without reaching it.
        var seen = Data()
        let token = Data(pausedToken.utf8)
        while seen.range(of: token) == nil {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            seen.append(chunk)
        }
        let paused = seen.range(of: token) != nil
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        return paused && process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGKILL
    }

    private static func makeChild(bundle: DatabaseBundle, engine: StorageEngineKind, step: UpgradeStep,
                                  mode: String) -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        process.arguments = ["--testing-library", "swift-testing", "--filter", "crashingUpgradeChild"]
        var environment = ProcessInfo.processInfo.environment
        environment[Variable.step] = step.rawValue
        environment[Variable.directory] = bundle.directory
        environment[Variable.name] = bundle.name
        environment[Variable.engine] = engine.rawValue
        environment[Variable.mode] = mode
        process.environment = environment
        process.standardError = FileHandle.nullDevice
        return process
    }

    /// The child's work: the upgrade, with a hook that `_exit`s at the step.
    static func runInChild() throws {
        let environment = ProcessInfo.processInfo.environment
        guard let stepName = environment[Variable.step], let step = UpgradeStep(rawValue: stepName),
              let directory = environment[Variable.directory], let name = environment[Variable.name],
              let engine = environment[Variable.engine].flatMap(StorageEngineKind.init(rawValue:)) else { return }
        let pauses = environment[Variable.mode] == "pause"
        let upgrader = LegacyUpgrader(registry: UpgradedFixture.registry, engineName: engine.engine.name) {
            guard $0 == step else { return }
            if !pauses { _exit(crashStatus) }
            FileHandle.standardOutput.write(Data((pausedToken + "\n").utf8))
            // Wait for the parent's SIGKILL; pause() returns only for caught signals.
            while true { pause() }
        }
        try upgrader.upgradeInPlace(DatabaseBundle(name: name, directory: directory))
    }
}
