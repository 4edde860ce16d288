import ArgumentParser
import CommandLineSupport

/// `cblite-replicate`: the replication commands of `cblite` (`push`, `pull`, `sync`, `serve`),
/// which `cblite` hands over to this executable once it has checked their arguments
/// (ReplicationHelper in CommandLineSupport says why they live apart).
@main
struct CBLiteReplicate: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cblite",
        abstract: "The replication commands of cblite (push, pull, sync, serve); run them as cblite COMMAND.",
        subcommands: [Push.self, Pull.self, Sync.self, Serve.self])

    /// Runs the command line, reporting any error as one line.
    static func main() { ToolFailure.main(Self.self) }
}
