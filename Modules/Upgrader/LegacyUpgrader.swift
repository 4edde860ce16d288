import FoundationEssentials
import LiteDatabase
import LiteSupport

/// Migrates a Couchbase Lite 1.x SQLite database into a new 2.x database, never losing data.
///
/// The new database is built in a staging folder beside the destination
/// (`<name>.cblite2_TEMP/<name>.cblite2`), committed, reopened and checked against the 1.x one
/// (document count, every body, history and deleted state, every blob), and only then moved
/// into place: by one atomic exchange of the two folders for an upgrade in place, by one
/// `rename` for a conversion to a new path. If the process dies at any point the 1.x original
/// is intact under its name, or the verified new database is; ``finishInterruptedUpgrade(at:)``,
/// run before every open, then removes the staging folder or completes the swap.
///
/// ```swift
/// let upgrader = LegacyUpgrader(registry: registry, engineName: "SQLite")
/// let summary = try upgrader.upgradeInPlace(DatabaseBundle(name: "app", directory: dir))
/// // or, leaving the 1.x bundle untouched (cblite-convert):
/// try upgrader.convert(legacyBundleAt: "/old/app.cblite2",
///                      to: DatabaseBundle(name: "app", directory: "/new"))
/// ```
package struct LegacyUpgrader: Sendable {
    /// The engines the new database may use.
    package let registry: StorageEngineRegistry
    /// The engine of the new database; the registry's first (SQLite) when `nil`.
    package let engineName: String?
    /// The key the new database (its data file and blobs) is encrypted with; nil: plaintext.
    package let encryptionKey: AES256Key?
    /// Called at every ``UpgradeStep``; throwing aborts the upgrade. For tests.
    package var faultHook: UpgradeFaultHook?

    /// The suffix of the staging folder, as LiteCore names its upgrade folder.
    package static let stagingSuffix = "_TEMP"

    /// Creates an upgrader writing with `engineName` (nil: the registry's default engine),
    /// encrypted with `encryptionKey` when one is given.
    package init(registry: StorageEngineRegistry, engineName: String?, encryptionKey: AES256Key? = nil,
                 faultHook: UpgradeFaultHook? = nil) {
        self.registry = registry
        self.engineName = engineName
        self.encryptionKey = encryptionKey
        self.faultHook = faultHook
    }

    /// Replaces the 1.x database in `bundle` with its 2.x upgrade.
    ///
    /// Holds a lock on the folder containing the bundle meanwhile (other threads and processes
    /// opening it wait), and checks the format again under it.
    ///
    /// - Returns: what was copied, or `nil` when the bundle no longer holds a 1.x database
    ///   (another open upgraded it first).
    /// - Throws: ``UpgraderError``: the reader's refusals (ForestDB, encrypted, schema out of
    ///   range, corrupt), a document's invalid body or revision ID (naming it), or
    ///   ``UpgraderError/Code/upgradeFailed`` when building, checking or swapping in the new
    ///   database failed. In every case the 1.x original is left as it was.
    @discardableResult
    package func upgradeInPlace(_ bundle: DatabaseBundle) throws -> UpgradeSummary? {
        let target = Self.folderPath(bundle.path)
        return try Self.lockingFolder(of: target) {
            try Self.recover(target)
            guard DatabaseFormat.detect(at: target).isUpgradable else { return nil }
            let staging = target + Self.stagingSuffix
            let built = try build(from: target, stagingFolder: staging, name: bundle.name)
            do {
                try BundleSwap.install(built.path, replacing: target, stagingFolder: staging)
                try faultHook?(.swapped)
            } catch {
                try? Self.recover(target)   // allowed: the swap's own error is thrown; a recovery left undone is finished by the next open
                throw Self.failure(target, "could not put the upgraded database in place", error)
            }
            try? FileManager.default.removeItem(atPath: staging)   // allowed: our empty staging folder; the 1.x original is not under it
            try faultHook?(.finished)
            return built.summary
        }
    }

    /// Writes the 2.x upgrade of the 1.x bundle at `sourcePath` as the new database
    /// `destination`, leaving the source untouched (the tools' conversion).
    ///
    /// - Throws: as ``upgradeInPlace(_:)``; ``UpgraderError/Code/upgradeFailed`` when
    ///   `destination` already exists.
    @discardableResult
    package func convert(legacyBundleAt sourcePath: String, to destination: DatabaseBundle) throws -> UpgradeSummary {
        let target = Self.folderPath(destination.path)
        let source = Self.folderPath(sourcePath)
        guard URL(fileURLWithPath: source).standardizedFileURL != URL(fileURLWithPath: target).standardizedFileURL else {
            throw UpgraderError(.upgradeFailed, "cannot convert \(source) onto itself: name another "
                + "destination, or upgrade it in place by opening it", path: source)
        }
        guard !FileManager.default.fileExists(atPath: target) else {
            throw UpgraderError(.upgradeFailed, "cannot convert \(source) into \(target): the "
                + "destination exists; delete it or choose another name", path: target)
        }
        let staging = target + Self.stagingSuffix
        try? FileManager.default.removeItem(atPath: staging)   // allowed: a leftover staging folder of ours; `build` recreates it and fails if it cannot
        let built = try build(from: source, stagingFolder: staging, name: destination.name)
        do {
            try FileManager.default.createDirectory(atPath: destination.directory, withIntermediateDirectories: true)
            try FileManager.default.moveItem(atPath: built.path, toPath: target)
        } catch {
            try? FileManager.default.removeItem(atPath: staging)   // allowed: our staging copy; the move's error is thrown
            throw Self.failure(source, "could not move the converted database to \(target)", error)
        }
        try? FileManager.default.removeItem(atPath: staging)   // allowed: our emptied staging folder
        return built.summary
    }

    /// Completes or undoes an upgrade of the bundle at `bundlePath` that a crash interrupted;
    /// does nothing (and takes no lock) when there is no staging folder. Safe to call before
    /// every open.
    ///
    /// - Throws: ``UpgraderError/Code/upgradeFailed`` when a file operation fails.
    package static func finishInterruptedUpgrade(at bundlePath: String) throws {
        let target = folderPath(bundlePath)
        guard FileManager.default.fileExists(atPath: target + stagingSuffix) else { return }
        try lockingFolder(of: target) { try recover(target) }
    }

    /// Recovers an interrupted upgrade of `target`; the caller holds the folder lock.
    private static func recover(_ target: String) throws {
        do {
            try BundleSwap.recover(target: target, stagingFolder: target + stagingSuffix)
        } catch {
            throw failure(target, "could not clean up after an interrupted upgrade in "
                + "\(target + stagingSuffix)", error)
        }
    }

    /// Runs `body` holding the lock on the folder that contains `target`.
    private static func lockingFolder<T>(of target: String, _ body: () throws -> T) throws -> T {
        let folder = target.pathDeletingLastComponent
        do {
            return try DirectoryLock.withLock(on: folder.isEmpty ? "." : folder) {
                Result { try body() }
            }.get()
        } catch {
            throw failure(target, "could not lock \(folder) for the upgrade", error)
        }
    }

    /// Builds and verifies the new database in `stagingFolder`; returns where it is.
    private func build(from source: String, stagingFolder staging: String,
                       name: String) throws -> (path: String, summary: UpgradeSummary) {
        let fileManager = FileManager.default
        do {
            if fileManager.fileExists(atPath: staging) { try fileManager.removeItem(atPath: staging) }
            try fileManager.createDirectory(atPath: staging, withIntermediateDirectories: true)
        } catch {
            throw Self.failure(source, "could not create the staging folder \(staging)", error)
        }
        do {
            let reader = try LegacyDatabaseReader(bundlePath: source,
                                                  temporaryDirectory: URL(fileURLWithPath: staging, isDirectory: true))
            defer { reader.close() }
            try faultHook?(.readerOpened)
            let bundle = DatabaseBundle(name: name, directory: staging)
            var summary = try migrate(reader, into: bundle)
            summary.sourcePath = source
            try faultHook?(.committed)
            try verify(bundle, against: reader, summary: summary)
            try faultHook?(.verified)
            return (Self.folderPath(bundle.path), summary)
        } catch {
            try? fileManager.removeItem(atPath: staging)   // allowed: our half-built copy; the build's error is thrown
            throw Self.failure(source, "building the 2.x database failed", error)
        }
    }

    /// An ``UpgraderError/Code/upgradeFailed`` error for the bundle at `path`; an upgrader error
    /// already says what failed and is returned as it is.
    static func failure(_ path: String, _ problem: String, _ cause: any Error) -> UpgraderError {
        if let cause = cause as? UpgraderError { return cause }
        return UpgraderError(.upgradeFailed, "cannot upgrade the 1.x database at \(path): \(problem); "
            + "the 1.x database was not changed", path: path, underlying: cause)
    }

    /// `path` without its trailing slash (bundle paths end in `/`).
    static func folderPath(_ path: String) -> String {
        var path = path
        while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
        return path
    }
}
