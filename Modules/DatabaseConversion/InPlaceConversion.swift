import FoundationEssentials
import LiteDatabase
import LiteStorage
import LiteSupport

/// Converts a database to another engine inside its own bundle, so that a crash at any point
/// leaves a usable database: the original until the commit point, the verified copy after it.
///
/// Steps (each named by ``Step`` for fault injection):
/// 1. write the marker file `conversion-in-progress` naming both engines;
/// 2. build the new engine's file beside the old one, as `<file>.converting` (blobs stay
///    where they are: `Attachments/` does not depend on the engine);
/// 3. verify it record by record against the original;
/// 4. rename it to its real name — the commit point;
/// 5. delete the original engine's file, then the marker.
///
/// ``recoverHoldingLock(bundlePath:registry:)`` finishes or undoes an interrupted conversion: with the
/// marker and the `.converting` file present it deletes the copy (the original is intact);
/// with the marker and the renamed copy present it deletes the original's remains. Every open
/// through the tools and through `Database.init` runs it first (through ``BundleRecovery``).
///
/// ```swift
/// try InPlaceConversion.convert(bundlePath: bundle.path, to: RocksDBEngine(), registry: registry)
/// ```
package enum InPlaceConversion {
    /// The points at which a conversion can be interrupted (for fault-injection tests).
    package enum Step: String, Sendable, CaseIterable {
        /// The marker is written; nothing built yet.
        case markerWritten
        /// The first batch of records is in the new file.
        case copying
        /// The new file is complete and closed.
        case built
        /// The new file matched the original.
        case verified
        /// The new file has its real name (the commit point has passed).
        case renamed
        /// The original engine's file is deleted; the marker is still there.
        case originalDeleted
    }

    /// The marker file's name inside the bundle.
    package static let markerName = "conversion-in-progress"
    /// The suffix of the file being built.
    package static let buildingSuffix = ".converting"

    /// Converts the database in `bundlePath` to `target`. Does nothing when it is already
    /// stored with `target`.
    ///
    /// - Parameter encryptionKey: the database's key; the converted file is encrypted with it
    ///   too (blobs stay where they are, as they are).
    /// - Parameter fault: called at each ``Step``; an error it throws stops the conversion
    ///   where it is, as a crash would (no clean-up), for tests.
    /// - Throws: `DatabaseToolsError` — `.notFound` when the bundle holds no database, `.busy`
    ///   when it is open in this process, `.verificationFailed` (after which the copy is removed and the original kept).
    package static func convert(bundlePath: String, to target: any StorageEngine, registry: StorageEngineRegistry,
                                encryptionKey: AES256Key? = nil, fault: (Step) throws -> Void = { _ in }) throws {
        try BundleReplacement.run(bundlePath: bundlePath, registry: registry, action: "convert it to \(target.name)",
                                  step: Step.self,
                                  cleanUp: { try recoverHoldingLock(bundlePath: bundlePath, registry: registry) }) { source in
            guard source.name != target.name else { return }
            let building = target.dataFilePath(inBundle: bundlePath) + buildingSuffix
            try run(bundlePath: bundlePath, source: source, target: target, building: building,
                    encryptionKey: encryptionKey, fault: fault)
        }
    }

    /// An error a fault hook throws to simulate a crash; conversion leaves everything as is.
    package typealias InjectedFault = BundleReplacement.InjectedFault<Step>

    private static func run(bundlePath: String, source: any StorageEngine, target: any StorageEngine,
                            building: String, encryptionKey: AES256Key?, fault: (Step) throws -> Void) throws {
        let marker = markerPath(bundlePath)
        try DatabaseToolsError.wrapping(.ioFailure, "cannot write \(marker)") {
            try Data("\(source.name)\n\(target.name)\n".utf8).write(to: URL(fileURLWithPath: marker), options: .atomic)
        }
        try fault(.markerWritten)
        let sourceFile = try DatabaseToolsError.wrapping(.ioFailure, "cannot open \(bundlePath) to convert it") {
            try source.open(at: source.dataFilePath(inBundle: bundlePath), options: DataFileOptions(readOnly: true,
                                                                                            encryptionKey: encryptionKey))
        }
        defer { try? sourceFile.close() }   // allowed: opened read-only; the success path closes it with `try`
        let copy = try DatabaseToolsError.wrapping(.ioFailure, "cannot create \(building)") {
            try target.open(at: building, options: DataFileOptions(create: true, encryptionKey: encryptionKey))
        }
        try BundleReplacement.copyRecords(from: sourceFile, into: copy, verify: false, step: Step.self) {
            try fault(.copying)
        }
        try fault(.built)
        // Blobs stay where they are (the same Attachments/), so only the records are compared.
        let built = try DatabaseToolsError.wrapping(.ioFailure, "cannot reopen \(building) to verify it") {
            try target.open(at: building, options: DataFileOptions(readOnly: true, encryptionKey: encryptionKey))
        }
        defer { try? built.close() }  // allowed: reopened read-only to verify
        _ = try StorageVerifier.compare(sourceFile, built)
        try sourceFile.close()
        try fault(.verified)
        try DatabaseToolsError.wrapping(.ioFailure, "cannot move \(building) into place") {
            try moveIntoPlace(building, to: target.dataFilePath(inBundle: bundlePath))
        }
        try fault(.renamed)
        try finishCommitted(bundlePath: bundlePath, source: source)
        try fault(.originalDeleted)
        try BundleReplacement.removeIfPresent(markerPath(bundlePath))
    }

    /// Finishes or undoes a conversion a crash interrupted; does nothing when none was. The
    /// caller holds the bundle's exclusive lock (``BundleRecovery`` takes it).
    package static func recoverHoldingLock(bundlePath: String, registry: StorageEngineRegistry) throws {
        let marker = markerPath(bundlePath)
        let fileManager = FileManager.default
        guard fileManager.fileExists(atPath: marker) else { return }
        let names = (try? String(contentsOfFile: marker, encoding: .utf8))?  // allowed: an unreadable marker reads as empty, which is reported as damaged just below
            .split(separator: "\n").map(String.init) ?? []
        guard names.count == 2, let source = registry.engine(named: names[0]),
              let target = registry.engine(named: names[1]) else {
            throw DatabaseToolsError(.ioFailure, "\(marker) is damaged; check which database file in "
                                     + "\(bundlePath) is complete, then delete the marker")
        }
        let building = target.dataFilePath(inBundle: bundlePath) + buildingSuffix
        try DatabaseToolsError.wrapping(.ioFailure, "cannot recover the interrupted conversion in \(bundlePath)") {
            if fileManager.fileExists(atPath: building) || !target.exists(at: target.dataFilePath(inBundle: bundlePath)) {
                // Before the commit point: the original is intact; drop the partial copy (and any
                // side files already moved beside the final name, which has no main file yet).
                try target.delete(at: building)
                let final = target.dataFilePath(inBundle: bundlePath)
                if !target.exists(at: final) { try target.delete(at: final) }
                try BundleReplacement.removeIfPresent(markerPath(bundlePath))
            } else {
                try finishCommitted(bundlePath: bundlePath, source: source)
                try BundleReplacement.removeIfPresent(markerPath(bundlePath))
            }
        }
    }

    /// Moves the built file's side files (SQLite's `-wal`, `-shm`) first, then the file itself:
    /// the last rename is the commit point.
    private static func moveIntoPlace(_ building: String, to final: String) throws {
        let fileManager = FileManager.default
        let folder = building.pathDeletingLastComponent
        let name = building.pathLastComponent
        for entry in try fileManager.contentsOfDirectory(atPath: folder) where entry.hasPrefix(name) && entry != name {
            let suffix = String(entry.dropFirst(name.count))
            let destination = final + suffix
            if fileManager.fileExists(atPath: destination) { try fileManager.removeItem(atPath: destination) }
            try fileManager.moveItem(atPath: folder.pathAppending(entry), toPath: destination)
        }
        try fileManager.moveItem(atPath: building, toPath: final)
    }

    private static func finishCommitted(bundlePath: String, source: any StorageEngine) throws {
        try DatabaseToolsError.wrapping(.ioFailure, "cannot delete the old \(source.name) file in \(bundlePath)") {
            try source.delete(at: source.dataFilePath(inBundle: bundlePath))
        }
    }

    private static func markerPath(_ bundlePath: String) -> String {
        bundlePath.pathAppending(markerName)
    }
}
