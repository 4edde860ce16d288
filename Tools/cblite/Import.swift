import CommandLineSupport
import ArgumentParser
import DatabaseTools

/// `cblite import DB FILE [--id-key KEY]`.
struct Import: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import JSON Lines, a JSON array, or a folder of .json files; creates the database if needed.")

    @OptionGroup var options: DatabaseOptions

    @Argument(help: "The file or folder to import.")
    var file: String

    @Option(help: "The property holding each document's ID.")
    var idKey = "_id"

    @Option(help: "The engine of a new database: sqlite (default) or rocksdb.")
    var engine: String?

    @Flag(help: "Show no progress or summary.")
    var quiet = false

    func run() throws {
        try ToolFailure.reporting {
            let core = try options.open(.create(engine: engine))
            defer { try? core.close() }
            let display = Output.progress(quiet: quiet)
            let count = try DocumentImporter.importDocuments(into: core, from: file, idKey: idKey,
                                                             progress: display.update)
            display.finish()
            if !quiet { print("Imported \(count) documents into \(core.bundle.path)") }
        }
    }
}
