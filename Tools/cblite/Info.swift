import CommandLineSupport
import ArgumentParser
import DatabaseTools

/// `cblite info DB [--json]`.
struct Info: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Show a database's engine, format, counts, sequences, UUIDs, blobs, indexes and sizes.")

    @OptionGroup var options: DatabaseOptions

    @Flag(help: "Print one JSON object.")
    var json = false

    func run() throws {
        try ToolFailure.reporting {
            let core = try options.open(.readOnly)
            defer { try? core.close() }
            let info = try DatabaseInfo.gather(core)
            print(json ? try Output.json(info) : info.text)
        }
    }
}
