import Foundation

/// A fresh, empty directory that is removed with everything in it when the value is released.
///
/// Tests that touch the file system make one each, so they never see each other's files and
/// can run in parallel.
public final class TemporaryDirectory: @unchecked Sendable {
    /// The directory's location.
    public let url: URL

    /// The directory's location as a file system path.
    public var path: String { url.path }

    /// Creates a new directory under the system's temporary directory.
    public init(prefix: String = "cbl-test") throws {
        let name = "\(prefix)-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString)"
        url = FileManager.default.temporaryDirectory.appendingPathComponent(name, isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// A location inside the directory (not created).
    public func appending(_ component: String) -> URL {
        url.appendingPathComponent(component)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }
}

/// Runs `body` with a fresh temporary directory and removes the directory afterwards.
public func withTemporaryDirectory<T>(_ body: (TemporaryDirectory) throws -> T) throws -> T {
    let directory = try TemporaryDirectory()
    return try withExtendedLifetime(directory) { try body(directory) }
}

/// Runs `body` with a fresh temporary directory and removes the directory afterwards.
public func withTemporaryDirectory<T>(
    _ body: (TemporaryDirectory) async throws -> T
) async throws -> T {
    let directory = try TemporaryDirectory()
    let result = try await body(directory)
    withExtendedLifetime(directory) {}
    return result
}
