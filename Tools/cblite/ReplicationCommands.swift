import ArgumentParser
import CommandLineSupport

// The replication commands parse and check their arguments here, so that `--help` and argument
// errors work as for every other command, then hand the run to `cblite-replicate`
// (ReplicationHelper: why the replicator lives in an executable of its own).

/// `cblite push DB TARGET`.
struct Push: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "push", abstract: "Push the database's changes to a server or another database.")
    @OptionGroup var options: ReplicationArguments
    func run() throws { try ToolFailure.reporting { try ReplicationHelper.run("push", options.commandLine) } }
}

/// `cblite pull DB TARGET`.
struct Pull: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "pull", abstract: "Pull a server's or another database's changes into the database.")
    @OptionGroup var options: ReplicationArguments
    func run() throws { try ToolFailure.reporting { try ReplicationHelper.run("pull", options.commandLine) } }
}

/// `cblite sync DB TARGET [--continuous]`.
struct Sync: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "sync", abstract: "Push and pull between the database and a server or another database.")
    @OptionGroup var options: ReplicationArguments
    func run() throws { try ToolFailure.reporting { try ReplicationHelper.run("sync", options.commandLine) } }
}

/// `cblite serve DB [--port P] …`: a listener for replicators, until interrupted.
struct Serve: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "serve", abstract: "Serve the database to replicators (ws:// or wss://) until interrupted.")
    @OptionGroup var options: ServeArguments
    func run() throws { try ToolFailure.reporting { try ReplicationHelper.run("serve", options.commandLine) } }
}
