import FoundationEssentials
import LiteDatabase
import LiteStorage

/// What the operations that replace a bundle's files in place (``InPlaceConversion``,
/// ``EncryptionKeyChange``) share: the exclusive lock, the recovery of an earlier interrupted
/// operation first, the check that no file of the bundle is open in this process, the clean-up
/// after a failure, and the record copy with its fault hook.
package enum BundleReplacement {
    /// An error a fault hook throws to simulate a crash at `step`: the operation leaves
    /// everything as it is, with no clean-up.
    package struct InjectedFault<Step: Sendable>: Error, Sendable {
        /// The step at which the simulated crash happened.
        package let step: Step
        /// Makes a fault.
        package init(step: Step) { self.step = step }
    }

    /// Runs `body` with the bundle's engine while holding the bundle's exclusive lock (no open
    /// database, in any process, can be under it, and opens wait until it is done), after
    /// finishing or undoing an operation a crash interrupted.
    ///
    /// - Parameter action: what is being done, for messages ("convert … to RocksDB").
    /// - Parameter cleanUp: run when `body` fails other than by an ``InjectedFault``; its own
    ///   failure is logged, and `body`'s error is thrown.
    /// - Throws: `DatabaseToolsError` — `.notFound` when the bundle holds no database, `.busy`
    ///   when it is open in any process; what `body` throws.
    package static func run<Step: Sendable>(bundlePath: String, registry: StorageEngineRegistry, action: String,
                                            step: Step.Type, cleanUp: () throws -> Void,
                                            _ body: (any StorageEngine) throws -> Void) throws {
        guard FileManager.default.fileExists(atPath: bundlePath) else {
            throw DatabaseToolsError(.notFound, "no database at \(bundlePath): cannot \(action)")
        }
        let lock = try DatabaseToolsError.wrapping(.ioFailure, "cannot lock \(bundlePath)") {
            try BundleLock.exclusive(bundlePath: bundlePath, wait: false)
        }
        guard let lock else {
            throw DatabaseToolsError(.busy, "cannot \(action): the database \(bundlePath) is open (in this or another "
                                     + "process); close every other connection first")
        }
        defer { lock.release() }
        try BundleRecovery.recoverHoldingLock(bundlePath: bundlePath, registry: registry)
        guard let engine = registry.engine(ofBundle: bundlePath) else {
            throw DatabaseToolsError(.notFound, "no database at \(bundlePath): cannot \(action)")
        }
        guard !SharedFile.isOpen(path: engine.dataFilePath(inBundle: bundlePath)) else {
            throw DatabaseToolsError(.busy, "cannot \(action): the database \(bundlePath) is open in this process; "
                                     + "close it first")
        }
        do {
            try body(engine)
        } catch where !(error is InjectedFault<Step>) {
            do {
                try cleanUp()
            } catch let cleanup {
                // The originals are intact (the failure came before the commit point, or the
                // recovery would have finished it); say what is left behind.
                DatabaseLog.error("cannot clean up after failing to \(action): \(cleanup)")
            }
            throw error
        }
    }

    /// Copies every record of `source` into the new file `copy`, calling `firstBatch` once after
    /// the first batch is written (a fault hook), and closes `copy` (also when the copy fails).
    ///
    /// - Parameter verify: whether to compare `copy` with `source` before closing it.
    /// - Throws: what the copier, the verifier or the hook throws (the hook's own error as thrown).
    package static func copyRecords<Step: Sendable>(from source: any DataFile, into copy: any DataFile, verify: Bool,
                                                    step: Step.Type, firstBatch: () throws -> Void) throws {
        do {
            var first = true
            try StorageCopier.copy(from: source, to: copy) { _ in
                if first {
                    first = false
                    try firstBatch()
                }
            }
            if verify { _ = try StorageVerifier.compare(source, copy) }
            try copy.close()
        } catch {
            try? copy.close()  // allowed: the copy is abandoned; the error being thrown is the one to report
            // A simulated crash inside the copier comes back wrapped; the caller wants it as thrown.
            throw ((error as? DatabaseToolsError)?.underlying as? InjectedFault<Step>) ?? error
        }
    }

    /// Deletes the file (or folder) at `path` when there is one.
    package static func removeIfPresent(_ path: String) throws {
        guard FileManager.default.fileExists(atPath: path) else { return }
        try FileManager.default.removeItem(atPath: path)
    }
}
