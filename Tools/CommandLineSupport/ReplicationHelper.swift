import ArgumentParser
import Glibc

/// Hands `cblite push|pull|sync|serve` to `cblite-replicate`, the executable installed beside
/// `cblite` that holds the replicator and its network stack (SwiftNIO, TLS, certificates).
///
/// Why two executables: every `cblite` command pays at start-up for each protocol conformance
/// linked in (the Swift runtime scans all of them at each first lookup), and the network stack
/// is over a quarter of them; only the replication commands use it (docs/decisions.md, Tools-17).
/// The helper replaces the `cblite` process (`execv`), so its output, exit status and signals
/// are the command's own, and its messages still start with `cblite:`.
///
/// ```swift
/// try ReplicationHelper.run("push", arguments.commandLine)   // does not return
/// ```
package enum ReplicationHelper {
    /// The helper's file name; it must sit in the same folder as `cblite`.
    package static let executableName = "cblite-replicate"

    /// The helper's path: beside the running executable.
    package static func executablePath() throws -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else {
            throw ValidationError("cannot find \(executableName): /proc/self/exe is unreadable "
                                  + "(\(String(cString: strerror(errno))))")
        }
        let me = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let folder = me.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        return "\(folder)/\(executableName)"
    }

    /// Replaces this process with `cblite-replicate SUBCOMMAND ARGUMENTS…`; returns only by
    /// throwing, when the helper cannot be started.
    package static func run(_ subcommand: String, _ arguments: [String]) throws -> Never {
        let path = try executablePath()
        guard access(path, X_OK) == 0 else {
            throw ValidationError("cblite \(subcommand) needs \(executableName) beside cblite, at \(path) "
                                  + "(\(String(cString: strerror(errno)))); build it with "
                                  + "`swift build --product \(executableName)` or `make tools`")
        }
        // argv[0] "cblite": the helper's messages name the tool the user ran.
        let argv = ["cblite", subcommand] + arguments
        var pointers = argv.map { strdup($0) } + [nil]
        fflush(nil)
        execv(path, &pointers)
        let reason = String(cString: strerror(errno))
        for pointer in pointers { free(pointer) }
        throw ValidationError("cannot start \(path): \(reason)")
    }
}
