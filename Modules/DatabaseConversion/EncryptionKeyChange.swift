import BlobStore
import FoundationEssentials
import LiteDatabase
import LiteStorage
import LiteSupport

/// Re-encrypts a closed database bundle (its data file and its blobs) from one key to another,
/// so that a crash at any point leaves a database that one of the two keys opens, with every
/// committed record and blob.
///
/// Steps (each named by ``Step`` for fault injection):
/// 1. write the marker file `rekey-in-progress` naming the engine, in state `building`;
/// 2. copy the data file, encrypted with the new key, to `<file>.rekeying`;
/// 3. copy every blob, re-encrypted, to `Attachments.rekeying/`;
/// 4. verify both copies against the originals, and flush the data file's copy to disk;
/// 5. rewrite the marker (atomically, flushed) in state `committed` — the commit point;
/// 6. replace the data file with its copy, then `Attachments/` with its copy; delete the marker.
///
/// ``recover(bundlePath:registry:)`` undoes an interrupted change still `building` (the
/// originals are intact: the copies go) and finishes a `committed` one (each step of 6 can be
/// repeated). Every open runs it first, through ``BundleRecovery``.
///
/// ```swift
/// try EncryptionKeyChange.change(bundlePath: bundle.path, registry: registry, from: nil, to: key)
/// ```
package enum EncryptionKeyChange {
    /// The points at which a key change can be interrupted (for fault-injection tests).
    package enum Step: String, Sendable, CaseIterable {
        /// The marker is written; nothing copied yet.
        case markerWritten
        /// The first batch of records is in the new file.
        case copying
        /// The new data file is complete and closed.
        case built
        /// Every blob is in the new blob folder.
        case blobsCopied
        /// Both copies matched the originals.
        case verified
        /// The marker says `committed` (the commit point has passed).
        case committed
        /// The data file has been replaced by its copy.
        case dataFileReplaced
        /// The blob folder has been replaced by its copy; the marker is still there.
        case blobsReplaced
    }

    /// The marker file's name inside the bundle.
    package static let markerName = "rekey-in-progress"
    /// The suffix of the data file and blob folder being built.
    package static let buildingSuffix = ".rekeying"

    private static let building = "building"
    private static let committed = "committed"

    /// Re-encrypts the database in `bundlePath` from `oldKey` to `newKey` (nil: plaintext).
    /// Does nothing when the two are the same.
    ///
    /// - Parameter fault: called at each ``Step``; an error it throws stops the change where it
    ///   is, as a crash would (no clean-up), for tests.
    /// - Throws: `DatabaseToolsError` — `.notFound` when the bundle holds no database, `.busy`
    ///   when it is open (in this or another process); the engine's `notADatabaseFile` when
    ///   `oldKey` is not the database's key; `.verificationFailed` or `.ioFailure` when a copy
    ///   fails (the copies are then removed and the database is as it was).
    package static func change(bundlePath: String, registry: StorageEngineRegistry, from oldKey: AES256Key?,
                               to newKey: AES256Key?, fault: (Step) throws -> Void = { _ in }) throws {
        guard oldKey != newKey else { return }
        try BundleReplacement.run(bundlePath: bundlePath, registry: registry, action: "change its encryption key",
                                  step: Step.self,
                                  cleanUp: { try recoverHoldingLock(bundlePath: bundlePath, registry: registry) }) { engine in
            try run(bundlePath: bundlePath, engine: engine, from: oldKey, to: newKey, fault: fault)
        }
    }

    /// An error a fault hook throws to simulate a crash; the change leaves everything as is.
    package typealias InjectedFault = BundleReplacement.InjectedFault<Step>

    private static func run(bundlePath: String, engine: any StorageEngine, from oldKey: AES256Key?,
                            to newKey: AES256Key?, fault: (Step) throws -> Void) throws {
        let final = engine.dataFilePath(inBundle: bundlePath)
        let copyPath = final + buildingSuffix
        let attachments = bundlePath.pathAppending(DatabaseBundle.attachmentsFolder)
        let attachmentsCopy = attachments + buildingSuffix
        // The old key is checked before anything is written.
        let source = try engine.open(at: final, options: DataFileOptions(readOnly: true, encryptionKey: oldKey))
        defer { try? source.close() }  // allowed: opened read-only; the success path closes it with `try`
        try writeMarker(bundlePath, engine: engine, state: building)
        try fault(.markerWritten)

        let copy = try DatabaseToolsError.wrapping(.ioFailure, "cannot create \(copyPath)") {
            try engine.open(at: copyPath, options: DataFileOptions(create: true, encryptionKey: newKey))
        }
        // Compared while still open: a read-only reopen would leave an SQLite WAL beside the copy
        // that only a writer's close removes.
        try BundleReplacement.copyRecords(from: source, into: copy, verify: true, step: Step.self) {
            try fault(.copying)
        }
        try fault(.built)

        let oldBlobs = BlobStore(directory: URL(fileURLWithPath: attachments, isDirectory: true), encryptionKey: oldKey)
        let newBlobs = BlobStore(directory: URL(fileURLWithPath: attachmentsCopy, isDirectory: true), encryptionKey: newKey)
        let hasBlobs = FileManager.default.fileExists(atPath: attachments)
        if hasBlobs {
            try DatabaseToolsError.wrapping(.ioFailure, "re-encrypting the blobs of \(bundlePath)") {
                try FileManager.default.createDirectory(atPath: attachmentsCopy, withIntermediateDirectories: true)
                for key in try oldBlobs.allKeys() { try oldBlobs.transfer(key, to: newBlobs, method: .copy) }
            }
        }
        try fault(.blobsCopied)

        if hasBlobs { _ = try StorageVerifier.compareBlobs(oldBlobs, newBlobs) }
        try source.close()
        // A side file (an SQLite WAL) could not be moved with the copy safely; a closed copy has none.
        let leftovers = try sideFiles(of: copyPath)
        guard leftovers.isEmpty else {
            throw DatabaseToolsError(.ioFailure, "the re-encrypted copy \(copyPath) still has "
                                     + leftovers.joined(separator: ", ") + " after closing; nothing was changed")
        }
        // Engines do not flush each commit to disk: the copy is, before the commit point.
        try DatabaseToolsError.wrapping(.ioFailure, "cannot flush \(copyPath) to disk") {
            try synchronizeTree(copyPath)
        }
        try fault(.verified)

        try writeMarker(bundlePath, engine: engine, state: committed)
        try fault(.committed)
        try finishCommitted(bundlePath: bundlePath, engine: engine, fault: fault)
        try BundleReplacement.removeIfPresent(markerPath(bundlePath))
    }

    /// Finishes or undoes a key change a crash interrupted; does nothing when none was. The
    /// caller holds the bundle's exclusive lock.
    package static func recoverHoldingLock(bundlePath: String, registry: StorageEngineRegistry) throws {
        let marker = markerPath(bundlePath)
        let fileManager = FileManager.default
        guard fileManager.fileExists(atPath: marker) else { return }
        let lines = (try? String(contentsOfFile: marker, encoding: .utf8))?  // allowed: an unreadable marker reads as empty, reported as damaged below
            .split(separator: "\n").map(String.init) ?? []
        guard lines.count == 2, let engine = registry.engine(named: lines[0]),
              lines[1] == building || lines[1] == committed else {
            throw DatabaseToolsError(.ioFailure, "\(marker) is damaged; the database in \(bundlePath) may be under "
                                     + "its old or its new encryption key: open it with either, then delete the marker")
        }
        try DatabaseToolsError.wrapping(.ioFailure, "cannot recover the interrupted key change in \(bundlePath)") {
            if lines[1] == committed {
                try finishCommitted(bundlePath: bundlePath, engine: engine, fault: { _ in })
            } else {
                // Before the commit point: the originals are intact; the copies go.
                try engine.delete(at: engine.dataFilePath(inBundle: bundlePath) + buildingSuffix)
                let attachmentsCopy = bundlePath.pathAppending(DatabaseBundle.attachmentsFolder) + buildingSuffix
                try BundleReplacement.removeIfPresent(attachmentsCopy)
            }
            try BundleReplacement.removeIfPresent(markerPath(bundlePath))
        }
    }

    /// Moves the copies into place; each step can be repeated after a crash.
    private static func finishCommitted(bundlePath: String, engine: any StorageEngine,
                                        fault: (Step) throws -> Void) throws {
        let fileManager = FileManager.default
        let final = engine.dataFilePath(inBundle: bundlePath)
        let copyPath = final + buildingSuffix
        try DatabaseToolsError.wrapping(.ioFailure, "cannot move the re-encrypted \(copyPath) into place") {
            if fileManager.fileExists(atPath: copyPath) {
                try engine.delete(at: final)
                try fileManager.moveItem(atPath: copyPath, toPath: final)
            }
        }
        try fault(.dataFileReplaced)
        let attachments = bundlePath.pathAppending(DatabaseBundle.attachmentsFolder)
        let attachmentsCopy = attachments + buildingSuffix
        try DatabaseToolsError.wrapping(.ioFailure, "cannot move the re-encrypted blobs into \(attachments)") {
            if fileManager.fileExists(atPath: attachmentsCopy) {
                if fileManager.fileExists(atPath: attachments) { try fileManager.removeItem(atPath: attachments) }
                try fileManager.moveItem(atPath: attachmentsCopy, toPath: attachments)
            }
        }
        try FileSystem.synchronizeDirectory(bundlePath)
        try fault(.blobsReplaced)
    }

    private static func sideFiles(of path: String) throws -> [String] {
        let folder = path.pathDeletingLastComponent
        let name = path.pathLastComponent
        return try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasPrefix(name) && $0 != name }
    }

    /// Writes the marker through a flushed temporary file renamed over it, so that it is always
    /// either the previous state or the new one, on disk before the next step.
    private static func writeMarker(_ bundlePath: String, engine: any StorageEngine, state: String) throws {
        let marker = markerPath(bundlePath)
        let temporary = marker + ".tmp"
        try DatabaseToolsError.wrapping(.ioFailure, "cannot write \(marker)") {
            try Data("\(engine.name)\n\(state)\n".utf8).write(to: URL(fileURLWithPath: temporary))
            try FileSystem.synchronizeFile(temporary)
            try FileSystem.rename(temporary, to: marker)
            try FileSystem.synchronizeDirectory(bundlePath)
        }
    }

    /// Flushes a file, or a folder with every file in it, to disk.
    private static func synchronizeTree(_ path: String) throws {
        var isFolder = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else { return }
        guard isFolder else { return try FileSystem.synchronizeFile(path) }
        for name in try FileManager.default.contentsOfDirectory(atPath: path) {
            try synchronizeTree(path.pathAppending(name))
        }
        try FileSystem.synchronizeDirectory(path)
    }

    private static func markerPath(_ bundlePath: String) -> String {
        bundlePath.pathAppending(markerName)
    }
}
