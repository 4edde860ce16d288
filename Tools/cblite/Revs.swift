import CommandLineSupport
import ArgumentParser
import DatabaseTools

/// `cblite revs DB DOCID [--json]`.
struct Revs: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "revs",
        abstract: "Show a document's revision tree: IDs, flags, leaves, the current one, kept bodies.")

    @OptionGroup var options: DatabaseOptions

    @Argument(help: "The document ID.")
    var id: String

    @Flag(help: "Print one JSON object.")
    var json = false

    func run() throws {
        try ToolFailure.reporting {
            let core = try options.open(.readOnly)
            defer { try? core.close() }
            let listing = RevisionListing(try Output.document(core, id, allowDeleted: true))
            print(json ? try Output.json(listing) : listing.text)
        }
    }
}
