import BlobStore
import DatabaseConversion
import FoundationEssentials
import LiteStorage
import LiteSupport

/// Converts a database into a new bundle stored with another engine, preserving everything:
/// every key store with its records, sequences, counters, expirations and shared keys (all are
/// records), every byte-key store, and every blob (hard-linked when possible).
///
/// ```swift
/// let report = try EngineConverter.convert(source: try DatabaseLocation(path: "a.cblite2"),
///                                          destination: try DatabaseLocation(path: "b.cblite2"),
///                                          options: .init(engine: "rocksdb", verify: true))
/// ```
package enum EngineConverter {
    /// What a conversion does beyond the copy.
    package struct Options: Sendable {
        /// The destination's engine name; nil picks the other engine than the source's.
        package var engine: String?
        /// Compare source and destination record by record and blob by blob afterwards.
        package var verify: Bool
        /// Replace an existing destination.
        package var force: Bool

        /// Makes options.
        package init(engine: String? = nil, verify: Bool = false, force: Bool = false) {
            self.engine = engine
            self.verify = verify
            self.force = force
        }
    }

    /// What a conversion did.
    package struct Report: Sendable {
        /// The source's engine name.
        package var sourceEngine: String
        /// The destination's engine name.
        package var destinationEngine: String
        /// Records and byte-key entries copied.
        package var itemsCopied: Int
        /// Blobs transferred.
        package var blobsCopied: Int
        /// What verification compared, when it ran.
        package var verification: StorageVerifier.Summary?
    }

    /// Converts `source` into the new bundle `destination`; never modifies `source`.
    ///
    /// A 1.x source goes through ``LegacyUpgrade``. On failure the half-built destination is
    /// removed.
    /// - Throws: `DatabaseToolsError` — `.alreadyExists` when `destination` exists without
    ///   `force`, `.notFound` for a missing source, `.verificationFailed`, `.ioFailure`.
    @discardableResult
    package static func convert(source: DatabaseLocation, destination: DatabaseLocation, options: Options,
                                progress: (ConversionProgress) -> Void = { _ in }) throws -> Report {
        let sourcePath = URL(fileURLWithPath: source.path).standardizedFileURL.path
        let destinationPath = URL(fileURLWithPath: destination.path).standardizedFileURL.path
        guard sourcePath != destinationPath else {
            throw DatabaseToolsError(.invalidArgument, "source and destination are the same bundle (\(source.path)); "
                                     + "name a new destination")
        }
        try prepareDestination(destination, force: options.force)
        if case .legacySQLite = source.format {
            let engine = try DatabaseLocation.engine(named: options.engine ?? "RocksDB")
            // The upgrader verifies its own output against the 1.x database before installing it.
            let summary = try LegacyUpgrade.upgrade(source: source, destination: destination, engine: engine)
            return Report(sourceEngine: "SQLite (1.x schema \(summary.schemaVersion))", destinationEngine: engine.name,
                          itemsCopied: summary.documentCount, blobsCopied: summary.copiedBlobCount, verification: nil)
        }
        try source.refuseLegacy()
        try BundleRecovery.recover(bundlePath: source.path, registry: DatabaseLocation.registry)
        guard let sourceEngine = source.engine else {
            throw DatabaseToolsError(.notFound, "no database at \(source.path)")
        }
        let targetEngine = try options.engine.map(DatabaseLocation.engine(named:))
            ?? DatabaseLocation.registry.engines.first { $0.name != sourceEngine.name } ?? sourceEngine
        do {
            return try build(source: source, sourceEngine: sourceEngine, destination: destination,
                             targetEngine: targetEngine, verify: options.verify, progress: progress)
        } catch {
            do {
                try FileManager.default.removeItem(atPath: destination.path)
            } catch let cleanup {
                throw DatabaseToolsError(.ioFailure, "conversion failed, and the half-built \(destination.path) could "
                                         + "not be removed (\(cleanup)); delete it by hand", underlying: error)
            }
            throw error
        }
    }

    private static func prepareDestination(_ destination: DatabaseLocation, force: Bool) throws {
        guard FileManager.default.fileExists(atPath: destination.path) else { return }
        guard force else {
            throw DatabaseToolsError(.alreadyExists, "\(destination.path) already exists; pass --force to replace it")
        }
        try DatabaseToolsError.wrapping(.ioFailure, "cannot remove the existing \(destination.path)") {
            try FileManager.default.removeItem(atPath: destination.path)
        }
    }

    private static func build(source: DatabaseLocation, sourceEngine: any StorageEngine,
                              destination: DatabaseLocation, targetEngine: any StorageEngine, verify: Bool,
                              progress: (ConversionProgress) -> Void) throws -> Report {
        try DatabaseToolsError.wrapping(.ioFailure, "cannot create \(destination.path)") {
            try FileManager.default.createDirectory(atPath: destination.path, withIntermediateDirectories: true)
        }
        let sourceFile = try openFile(sourceEngine, bundle: source.path, create: false, readOnly: true,
                                      encryptionKey: source.encryptionKey)
        defer { try? sourceFile.close() }  // allowed: a read-only source; nothing to lose on close
        let destinationFile = try openFile(targetEngine, bundle: destination.path, create: true, readOnly: false,
                                           encryptionKey: destination.encryptionKey)
        let items: Int
        do {
            let total = try DatabaseToolsError.wrapping(.ioFailure, "cannot read \(source.path)") {
                try StorageCopier.workCount(of: sourceFile)
            }
            progress(ConversionProgress(phase: .records, completed: 0, total: total))
            try StorageCopier.copy(from: sourceFile, to: destinationFile) {
                progress(ConversionProgress(phase: .records, completed: $0, total: total))
            }
            items = total
            try destinationFile.close()
        } catch {
            try? destinationFile.close()  // allowed: the copy failed and is removed; its error is thrown
            throw error
        }
        let blobs = try transferBlobs(from: source, to: destination, progress: progress)
        var report = Report(sourceEngine: sourceEngine.name, destinationEngine: targetEngine.name,
                            itemsCopied: items, blobsCopied: blobs, verification: nil)
        if verify {
            report.verification = try verifyCopy(source: source, sourceFile: sourceFile, destination: destination,
                                                 engine: targetEngine, progress: progress)
        }
        // Index data of ours was copied as it is; LiteCore's value indexes exist in the copy only
        // as carried definitions, so opening it for writing adopts and builds them there. (Only
        // then: a writable open also completes what the core expects, such as UUIDs, which an
        // exact copy of a file without LiteCore indexes should not gain.)
        if try sourceFile.foreignIndexes().contains(where: { $0.kind == .value }) {
            try DatabaseToolsError.wrapping(.ioFailure, "cannot build the indexes of \(destination.path)") {
                let core = try destination.open(.readWrite)
                try core.close()
            }
        }
        return report
    }

    /// Compares the source's open data file and blobs with the (reopened) destination.
    static func verifyCopy(source: DatabaseLocation, sourceFile: any DataFile, destination: DatabaseLocation,
                           engine: any StorageEngine,
                           progress: (ConversionProgress) -> Void) throws -> StorageVerifier.Summary {
        progress(ConversionProgress(phase: .verifying, completed: 0, total: 1))
        let path = engine.dataFilePath(inBundle: destination.path)
        let copy = try DatabaseToolsError.wrapping(.ioFailure, "cannot reopen \(path) to verify it") {
            try engine.open(at: path, options: DataFileOptions(readOnly: true, encryptionKey: destination.encryptionKey))
        }
        defer { try? copy.close() }  // allowed: reopened read-only to verify
        var summary = try StorageVerifier.compare(sourceFile, copy)
        summary.blobs = try StorageVerifier.compareBlobs(blobStore(source), blobStore(destination))
        progress(ConversionProgress(phase: .verifying, completed: 1, total: 1))
        return summary
    }

    static func openFile(_ engine: any StorageEngine, bundle: String, create: Bool,
                         readOnly: Bool, encryptionKey: AES256Key?) throws -> any DataFile {
        let path = engine.dataFilePath(inBundle: bundle)
        return try DatabaseToolsError.wrapping(.ioFailure, "cannot open \(path) (\(engine.name))") {
            try engine.open(at: path, options: DataFileOptions(create: create, readOnly: readOnly,
                                                               encryptionKey: encryptionKey))
        }
    }

    static func blobStore(_ location: DatabaseLocation) -> BlobStore {
        BlobStore(directory: URL(fileURLWithPath: location.bundle.attachmentsPath, isDirectory: true),
                  encryptionKey: location.encryptionKey)
    }

    private static func transferBlobs(from source: DatabaseLocation, to destination: DatabaseLocation,
                                      progress: (ConversionProgress) -> Void) throws -> Int {
        try DatabaseToolsError.wrapping(.ioFailure, "copying blobs to \(destination.bundle.attachmentsPath)") {
            let from = blobStore(source)
            let to = blobStore(destination)
            let keys = try from.allKeys()
            for (index, key) in keys.enumerated() {
                try from.transfer(key, to: to, method: .linkOrCopy)
                if index % 100 == 99 || index == keys.count - 1 {
                    progress(ConversionProgress(phase: .blobs, completed: index + 1, total: keys.count))
                }
            }
            return keys.count
        }
    }
}
