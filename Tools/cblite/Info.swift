import CommandLineSupport
import ArgumentParser
import DatabaseTools
import LiteDatabase
import LiteSupport
import Glibc

/// `cblite info DB [--json]`.
struct Info: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Show a database's engine, format, counts, sequences, UUIDs, blobs, indexes and sizes.")

    @OptionGroup var options: DatabaseOptions

    @Flag(help: "Print one JSON object.")
    var json = false

    func run() throws {
        try ToolFailure.reporting { try Self.show(try options.open(.readOnly), json: json) }
    }

    /// Prints what `info` shows of `core`, then closes it.
    private static func show(_ core: DatabaseCore, json: Bool) throws {
        defer { try? core.close() }
        let info = try DatabaseInfo.gather(core)
        // Written, not `print`ed: `print` casts its argument to the output protocols at run
        // time, and each first cast scans every conformance record of the binary.
        let text = json ? try Output.json(info) : info.text
        StandardStreams.writeOutput((text + "\n").utf8)
    }

    /// `cblite info DB` with no option, run without the argument parser, whose reflection over
    /// the commands' properties was a third of the tool's start (decision Tools-22); exits.
    static func runUnparsed(database: String) -> Never {
        do {
            try ToolFailure.reporting {
                try show(try DatabaseLocation(path: database, encryptionKey: nil).open(.readOnly), json: false)
            }
            Glibc.exit(0)
        } catch {
            Glibc.exit(1)
        }
    }
}
