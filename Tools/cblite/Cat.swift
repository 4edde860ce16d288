import CommandLineSupport
import ArgumentParser
import DatabaseConversion
import DatabaseTools
import Fleece

/// `cblite cat DB DOCID... [--rev] [--raw]`.
struct Cat: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cat",
        abstract: "Print documents' current bodies as JSON (pretty on a terminal).")

    @OptionGroup var options: DatabaseOptions

    @Argument(help: "The document IDs.")
    var ids: [String]

    @Flag(help: "Include _id and _rev.")
    var rev = false

    @Flag(help: "Compact JSON, one document per line.")
    var raw = false

    func validate() throws {
        guard !ids.isEmpty else { throw ValidationError("name at least one document ID") }
    }

    func run() throws {
        try ToolFailure.reporting {
            let core = try options.open(.readOnly)
            defer { try? core.close() }
            for id in ids {
                let document = try Output.document(core, id)
                guard let body = try document.body(sharedKeys: core.sharedKeys) else {
                    throw DatabaseToolsError(.notFound, "document \"\(id)\" has no body stored")
                }
                var json = rev ? JSONFormatting.withMeta(body.root, id: id, rev: document.revisionID?.string)
                               : body.root.json()
                if !raw && Output.stdoutIsTerminal {
                    json = JSONFormatting.pretty(try FleeceDocument(json: json).root)
                }
                print(json)
            }
        }
    }
}
