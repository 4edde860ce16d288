import DatabaseConversion
import LiteStorage
import Upgrader

/// Where the 1.x → 2.x upgrader (`LegacyUpgrader`) plugs into the tools: `cblite-convert` on a
/// 1.x source calls ``upgrade(source:destination:engine:)``, `cblite --upgrade` calls
/// ``upgradeInPlace(_:engine:)``. Each is one call; the upgrader builds beside, verifies and
/// swaps, and leaves the 1.x original intact on any failure.
package enum LegacyUpgrade {
    /// Upgrades the 1.x bundle at `source` into the new 2.x bundle `destination` stored with
    /// `engine` (encrypted with `destination`'s key, if it has one), never modifying `source`.
    /// - Returns: what the upgrader copied (documents, blobs, the 1.x schema version).
    /// - Throws: `DatabaseToolsError` carrying the upgrader's `UpgraderError` (its message names
    ///   the database and, for a bad document, the document).
    @discardableResult
    package static func upgrade(source: DatabaseLocation, destination: DatabaseLocation,
                                engine: any StorageEngine) throws -> UpgradeSummary {
        try wrapping {
            try LegacyUpgrader(registry: DatabaseLocation.registry, engineName: engine.name,
                               encryptionKey: destination.encryptionKey)
                .convert(legacyBundleAt: source.path, to: destination.bundle)
        }
    }

    /// Upgrades the 1.x database at `location` in place, stored with `engine` (`cblite --upgrade`).
    /// - Throws: as ``upgrade(source:destination:engine:)``.
    package static func upgradeInPlace(_ location: DatabaseLocation, engine: any StorageEngine) throws {
        _ = try wrapping {
            try LegacyUpgrader(registry: DatabaseLocation.registry, engineName: engine.name,
                               encryptionKey: location.encryptionKey)
                .upgradeInPlace(location.bundle)
        }
    }

    private static func wrapping<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as UpgraderError {
            throw DatabaseToolsError(.upgradeRequired, error.message, underlying: error)
        }
    }
}
