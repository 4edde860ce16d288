import ArgumentParser
import CommandLineSupport
import DatabaseTools
import FoundationEssentials

/// `cblite export DB FILE`.
struct Export: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Export live documents as JSON Lines with _id (FILE, or - for stdout).")

    @OptionGroup var options: DatabaseOptions

    @Argument(help: "The file to write, or - for stdout.")
    var file: String

    func run() throws {
        try ToolFailure.reporting {
            let core = try options.open(.readOnly)
            defer { try? core.close() }
            try DocumentExporter.exportDocuments(of: core, toFile: file)
        }
    }
}
