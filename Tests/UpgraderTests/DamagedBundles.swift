import Foundation
import TestSupport

/// Bundles whose `db.sqlite3` is damaged in a chosen way, made from real fixtures.
enum DamagedBundles {
    /// A bundle whose `db.sqlite3` holds exactly `bytes`.
    static func bundle(in directory: TemporaryDirectory, holding bytes: [UInt8]) throws -> URL {
        let bundle = directory.appending("damaged.cblite2")
        try FileManager.default.createDirectory(at: bundle.appendingPathComponent("attachments"),
                                                withIntermediateDirectories: true)
        try Data(bytes).write(to: bundle.appendingPathComponent("db.sqlite3"))
        return bundle
    }

    /// Four pages of pseudo-random bytes, as a SQLCipher file reads without its key.
    static func encrypted(in directory: TemporaryDirectory) throws -> URL {
        var generator = SplitMix64(seed: 0x5EED)
        let bytes = (0..<4 * 4096).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
        return try bundle(in: directory, holding: bytes)
    }

    /// A copy of a 1.x fixture with `db.sqlite3` cut to its first `count` bytes.
    static func truncated(_ fixture: String, toBytes count: Int, in directory: TemporaryDirectory) throws -> URL {
        let bundle = try FixtureCopies.legacyBundle(fixture, into: directory)
        let file = bundle.appendingPathComponent("db.sqlite3")
        let bytes = try Data(contentsOf: file).prefix(count)
        try bytes.write(to: file)
        return bundle
    }

    /// A copy of a 1.x fixture with every page after the first overwritten by `fill`.
    static func overwritten(_ fixture: String, fill: UInt8, in directory: TemporaryDirectory) throws -> URL {
        let bundle = try FixtureCopies.legacyBundle(fixture, into: directory)
        let file = bundle.appendingPathComponent("db.sqlite3")
        var bytes = Array(try Data(contentsOf: file))
        let pageSize = Int(bytes[16]) << 8 | Int(bytes[17])
        for index in pageSize..<bytes.count { bytes[index] = fill }
        try Data(bytes).write(to: file)
        return bundle
    }
}
