import Foundation

/// Locates the shared real-world test material (`../shared/fixtures`) and copies it for tests.
///
/// Fixtures are never opened in place: opening a database writes beside it (a WAL, an upgrade),
/// so tests call ``copy(_:into:)`` first.
public enum Fixtures {
    /// An error raised when a fixture cannot be found.
    public struct NotFound: Error, CustomStringConvertible {
        /// The relative path that was asked for.
        public let relativePath: String
        /// What went wrong, for a person.
        public var description: String {
            "fixture \"\(relativePath)\" not found: set CBL_FIXTURES to the shared/fixtures folder, "
                + "or check out the project with shared/ beside it"
        }
    }

    /// The fixtures folder: `$CBL_FIXTURES` if set, else the nearest `shared/fixtures` found
    /// walking up from this source file or from the current directory.
    public static let root: URL? = {
        let fileManager = FileManager.default
        if let override = ProcessInfo.processInfo.environment["CBL_FIXTURES"], !override.isEmpty {
            return URL(fileURLWithPath: override, isDirectory: true)
        }
        let starts = [
            URL(fileURLWithPath: #filePath).deletingLastPathComponent(),
            URL(fileURLWithPath: fileManager.currentDirectoryPath, isDirectory: true),
        ]
        for start in starts {
            var directory = start.standardizedFileURL
            while directory.path != "/" {
                let candidate = directory.appendingPathComponent("shared/fixtures", isDirectory: true)
                if fileManager.fileExists(atPath: candidate.appendingPathComponent("README.md").path) {
                    return candidate
                }
                directory = directory.deletingLastPathComponent()
            }
        }
        return nil
    }()

    /// The fixtures the project carries itself (`Tests/Fixtures`, its README says where each
    /// came from), for real material the shared folder does not have.
    public static let carried = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures", isDirectory: true)

    /// The location of a fixture, e.g. `url("fleece/1person.json")`: in the shared folder, else
    /// among the project's own.
    public static func url(_ relativePath: String) throws -> URL {
        for base in [root, carried].compactMap({ $0 }) {
            let url = base.appendingPathComponent(relativePath)
            if FileManager.default.fileExists(atPath: url.path) { return url }
        }
        throw NotFound(relativePath: relativePath)
    }

    /// The bytes of a fixture file.
    public static func data(_ relativePath: String) throws -> Data {
        try Data(contentsOf: url(relativePath))
    }

    /// Copies a fixture file or folder into `directory`, keeping its last path component.
    ///
    /// - Returns: the location of the copy.
    @discardableResult
    public static func copy(_ relativePath: String, into directory: TemporaryDirectory) throws -> URL {
        let source = try url(relativePath)
        let destination = directory.appending(source.lastPathComponent)
        try FileManager.default.copyItem(at: source, to: destination)
        try makeWritable(destination)
        return destination
    }

    /// Fixture files are read-only (a copy keeps their modes); a copy that a test opens must be
    /// writable by its owner, and removable afterwards.
    private static func makeWritable(_ url: URL) throws {
        let fileManager = FileManager.default
        var paths = [url.path]
        if let enumerator = fileManager.enumerator(atPath: url.path) {
            while let relative = enumerator.nextObject() as? String {
                paths.append(url.appendingPathComponent(relative).path)
            }
        }
        for path in paths {
            let attributes = try fileManager.attributesOfItem(atPath: path)
            let mode = (attributes[.posixPermissions] as? NSNumber)?.uint16Value ?? 0o644
            try fileManager.setAttributes([.posixPermissions: NSNumber(value: mode | 0o200)], ofItemAtPath: path)
        }
    }
}
