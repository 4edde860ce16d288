import Foundation
import TestSupport

/// Fixture copies the tests may change (the shared fixtures are read-only, and so would be
/// plain copies of them, which the temporary directory could then not remove).
enum FixtureCopies {
    /// Copies a fixture into `directory` and makes the copy writable; returns its location.
    static func writable(_ relativePath: String, into directory: TemporaryDirectory) throws -> URL {
        let copy = try Fixtures.copy(relativePath, into: directory)
        let fileManager = FileManager.default
        try makeWritable(copy.path)
        if let walker = fileManager.enumerator(atPath: copy.path) {
            while let relative = walker.nextObject() as? String {
                try makeWritable(copy.path + "/" + relative)
            }
        }
        return copy
    }

    /// The bundle of a 1.x fixture folder (`ios120` → `v1/ios120/iosdb.cblite2`), copied.
    static func legacyBundle(_ name: String, into directory: TemporaryDirectory) throws -> URL {
        let folder = try Fixtures.url("v1/\(name)")
        let bundles = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            .filter { $0.hasSuffix(".cblite2") }
        guard let bundle = bundles.first else { throw MissingFixture(description: "no .cblite2 bundle in v1/\(name)") }
        return try writable("v1/\(name)/\(bundle)", into: directory)
    }

    private static func makeWritable(_ path: String) throws {
        var isDirectory: ObjCBool = false
        _ = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
        try FileManager.default.setAttributes([.posixPermissions: isDirectory.boolValue ? 0o755 : 0o644],
                                              ofItemAtPath: path)
    }
}
