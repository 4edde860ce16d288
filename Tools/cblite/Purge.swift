import CommandLineSupport
import ArgumentParser
import DatabaseConversion
import DatabaseTools

/// `cblite purge DB DOCID`.
struct Purge: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "purge",
        abstract: "Remove a document and its whole history for good (no tombstone).")

    @OptionGroup var options: DatabaseOptions

    @Argument(help: "The document ID.")
    var id: String

    func run() throws {
        try ToolFailure.reporting {
            let core = try options.open(.readWrite)
            defer { try? core.close() }
            let removed = try DatabaseToolsError.wrapping(.ioFailure, "cannot purge \"\(id)\"") {
                try core.purgeDocument(id: id)
            }
            guard removed else { throw DatabaseToolsError(.notFound, "no document \"\(id)\" in \(core.bundle.path)") }
        }
    }
}
