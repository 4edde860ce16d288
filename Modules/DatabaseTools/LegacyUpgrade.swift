import LiteStorage

/// The seam where the 1.x → 2.x upgrader plugs into the tools: `cblite-convert` on a 1.x
/// source calls ``upgrade(source:destination:engine:)``, `cblite --upgrade` calls
/// ``upgradeInPlace(_:engine:)``.
///
/// Until the upgrader is merged both report `.notYetSupported`. Plugging it in is replacing
/// each `throw` with one call (the `migration` branch's `LegacyUpgrader`), shown in each
/// function's comment; callers and tests of the tools do not change.
package enum LegacyUpgrade {
    /// Upgrades the 1.x bundle at `source` into the new 2.x bundle `destination` stored with
    /// `engine`, never modifying `source`.
    /// - Throws: `.notYetSupported` for now.
    package static func upgrade(source: DatabaseLocation, destination: DatabaseLocation,
                                engine: any StorageEngine) throws {
        // try LegacyUpgrader(registry: DatabaseLocation.registry, engineName: engine.name)
        //     .convert(legacyBundleAt: source.path, to: destination.bundle)
        throw DatabaseToolsError(.notYetSupported, "\(source.path) is a Couchbase Lite 1.x database; upgrading "
                                 + "1.x databases is not yet supported by these tools (to \(destination.path), "
                                 + "\(engine.name))")
    }

    /// Upgrades the 1.x database at `location` in place, stored with `engine` (`cblite --upgrade`).
    /// - Throws: `.notYetSupported` for now.
    package static func upgradeInPlace(_ location: DatabaseLocation, engine: any StorageEngine) throws {
        // try LegacyUpgrader(registry: DatabaseLocation.registry, engineName: engine.name)
        //     .upgradeInPlace(location.bundle)
        throw DatabaseToolsError(.notYetSupported, "\(location.path) is a Couchbase Lite 1.x database; upgrading "
                                 + "1.x databases in place is not yet supported by these tools (\(engine.name))")
    }
}
