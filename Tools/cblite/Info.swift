import CommandLineSupport
import ArgumentParser
import DatabaseTools
import LiteSupport

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
            // Written, not `print`ed: `print` casts its argument to the output protocols at run
            // time, and each first cast scans every conformance record of the binary.
            let text = json ? try Output.json(info) : info.text
            StandardStreams.writeOutput((text + "\n").utf8)
        }
    }
}
