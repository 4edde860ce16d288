import Foundation

/// Fixture files are read-only; a copy opened for writing must be writable.
func makeWritable(_ url: URL) throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/chmod")
    process.arguments = ["-R", "u+w", url.path]
    try process.run()
    process.waitUntilExit()
}
