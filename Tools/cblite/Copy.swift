import ArgumentParser
import CommandLineSupport
import FoundationEssentials

/// `cblite cp SOURCE DESTINATION`: the real Couchbase Lite tool's copy command, so its command
/// lines work here too. What it does depends on the two ends, as there:
///
/// | source | destination | does |
/// |---|---|---|
/// | JSON file or folder | `….cblite2` | `import` (created when missing) |
/// | `….cblite2` | JSON file | `export` |
/// | `….cblite2` | `ws[s]://…` | `push` (`sync` with `--bidi`) |
/// | `ws[s]://…` | `….cblite2` | `pull` (`sync` with `--bidi`) |
/// | `….cblite2` | `….cblite2` | `push` into the other (created when missing) |
///
/// ```
/// cblite cp travel.json travel.cblite2
/// cblite cp travel.cblite2 ws://localhost:4984/travel --continuous
/// ```
struct Copy: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cp",
        abstract: "Copy between a database and a JSON file, a server or another database (as the real cblite cp).",
        discussion: """
            JSON → database imports, database → JSON exports, database → ws[s]:// pushes, \
            ws[s]:// → database pulls, database → database pushes into the other; --bidi \
            pushes and pulls.
            """)

    @Argument(help: "Where to copy from: a …/name.cblite2, a JSON file or folder, or a ws[s]:// URL.")
    var source: String

    @Argument(help: "Where to copy to: a …/name.cblite2, a JSON file, or a ws[s]:// URL.")
    var destination: String

    @Option(help: "The JSON property holding each document's ID when importing.")
    var jsonid = "_id"

    @Flag(help: "Replicate both ways (push and pull).")
    var bidi = false

    @Flag(help: "Keep replicating new changes until interrupted.")
    var continuous = false

    @Flag(name: [.customLong("existing"), .customShort("x")], help: "Fail when the destination does not exist yet.")
    var existing = false

    @Option(help: "HTTP basic authentication, as name:password.")
    var user: String?

    /// The database's key, when it is (or is to be created) encrypted.
    @OptionGroup var encryption: EncryptionKeyOptions

    @Flag(name: .shortAndLong, help: "Show progress (the default on a terminal; accepted for compatibility).")
    var verbose = false

    @Flag(help: "Stop at the first error (always the case here; accepted for compatibility).")
    var careful = false

    private enum End { case database, remote, json }

    private static func kind(_ path: String) -> End {
        if path.hasPrefix("ws://") || path.hasPrefix("wss://") { return .remote }
        let trimmed = path.hasSuffix("/") ? String(path.dropLast()) : path
        return trimmed.hasSuffix(".cblite2") ? .database : .json
    }

    func run() throws {
        try ToolFailure.reporting {
            let from = Self.kind(source), to = Self.kind(destination)
            if existing, to != .remote, !FileManager.default.fileExists(atPath: destination) {
                throw ValidationError("\(destination) does not exist (--existing)")
            }
            switch (from, to) {
            case (.json, .database):
                let command = try Import.parse([destination, source, "--id-key", jsonid] + encryption.arguments)
                try command.run()
            case (.database, .json):
                guard !destination.hasSuffix("/") else {
                    throw ValidationError("exporting to a folder of JSON files is not supported; give a file name "
                                          + "(documents are written one per line)")
                }
                let command = try Export.parse([source, destination] + encryption.arguments)
                try command.run()
            case (.database, .remote), (.database, .database):
                try replicate(database: source, other: destination, bidi ? "sync" : "push")
            case (.remote, .database):
                try replicate(database: destination, other: source, bidi ? "sync" : "pull")
            case (.remote, .remote), (.json, .json), (.json, .remote), (.remote, .json):
                throw ValidationError("cannot copy \(source) to \(destination): one end must be a database (…/name.cblite2)")
            }
        }
    }

    private func replicate(database: String, other: String, _ direction: String) throws {
        var arguments = [database, other] + encryption.arguments
        if continuous { arguments.append("--continuous") }
        if let user {
            let parts = user.split(separator: ":", maxSplits: 1).map(String.init)
            arguments += ["--user", parts[0]]
            if parts.count == 2 { arguments += ["--password", parts[1]] }
        }
        switch direction {
        case "push": let command = try Push.parse(arguments); try command.run()
        case "pull": let command = try Pull.parse(arguments); try command.run()
        default: let command = try Sync.parse(arguments); try command.run()
        }
    }
}
