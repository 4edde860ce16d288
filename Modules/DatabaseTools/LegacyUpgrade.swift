import Foundation
import LiteStorage

/// The seam where the 1.x → 2.x upgrader plugs into the tools: `cblite-convert` on a 1.x
/// source, and `cblite --upgrade`, both call ``upgrade(source:destination:engine:)``.
///
/// Until the upgrader lands this reports `.notYetSupported`; plugging it in is replacing the
/// one `throw` below with the upgrader's call ("upgrade bundle A into new bundle B with
/// engine E").
package enum LegacyUpgrade {
    /// Upgrades the 1.x bundle at `source` into a new 2.x bundle at `destination` stored with
    /// `engine`, never modifying `source`.
    /// - Throws: `.notYetSupported` for now.
    package static func upgrade(source: DatabaseLocation, destination: DatabaseLocation,
                                engine: any StorageEngine) throws {
        throw DatabaseToolsError(.notYetSupported, "\(source.path) is a Couchbase Lite 1.x database; upgrading "
                                 + "1.x databases is not yet supported by these tools (to \(destination.path), "
                                 + "\(engine.name))")
    }
}

extension LegacyUpgrade {
    /// Upgrades the 1.x database at `location` in place (`cblite --upgrade`): upgrades into a
    /// sibling bundle, then swaps the folders, keeping the original as `<name>.cblite2.v1`.
    /// - Throws: what ``upgrade(source:destination:engine:)`` throws.
    package static func upgradeInPlace(_ location: DatabaseLocation, engine: any StorageEngine) throws {
        let bundlePath = String(location.path.dropLast())
        let staging = try DatabaseLocation(path: (location.bundle.directory as NSString)
            .appendingPathComponent(".upgrading-\(location.bundle.name).cblite2"))
        try? FileManager.default.removeItem(atPath: staging.path)
        try upgrade(source: location, destination: staging, engine: engine)
        try DatabaseToolsError.wrapping(.ioFailure, "cannot move the upgraded database into \(location.path)") {
            try FileManager.default.moveItem(atPath: bundlePath, toPath: bundlePath + ".v1")
            try FileManager.default.moveItem(atPath: String(staging.path.dropLast()), toPath: bundlePath)
        }
    }
}
