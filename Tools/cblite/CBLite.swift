import CommandLineSupport
import ArgumentParser

/// `cblite`: inspect and edit Couchbase Lite databases.
@main
struct CBLite: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cblite",
        abstract: "Inspect and edit Couchbase Lite 2.x databases (.cblite2 bundles).",
        discussion: """
            Read-only commands (info, ls, cat, revs, export, blob) never create, upgrade or convert a \
            database; put and import create one when it does not exist (SQLite, or --engine rocksdb). \
            A 1.x database is only upgraded when --upgrade is given.
            """,
        subcommands: [Info.self, List.self, Cat.self, Revs.self, Put.self, Remove.self, Purge.self,
                      Import.self, Export.self, BlobCommand.self, Compact.self, QueryCommand.self, IndexCommand.self,
                      DropIndexCommand.self, IndexesCommand.self, Serve.self, Push.self, Pull.self, Sync.self, Copy.self, Select.self])

    /// Runs the command line, reporting any error as one line.
    static func main() {
        // The most common start, `cblite info DB`, skips the argument parser (Tools-22).
        let arguments = CommandLine.arguments
        if arguments.count == 3, arguments[1] == "info", !arguments[2].hasPrefix("-") {
            Info.runUnparsed(database: arguments[2])
        }
        ToolFailure.main(Self.self)
    }
}
