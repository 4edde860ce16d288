import CommandLineSupport
import ArgumentParser
import DatabaseConversion
import DatabaseTools
import LiteDatabase

/// `cblite rm DB DOCID`.
struct Remove: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "rm",
                                                    abstract: "Delete a document (leaves a tombstone).")

    @OptionGroup var options: DatabaseOptions

    @Argument(help: "The document ID.")
    var id: String

    func run() throws {
        try ToolFailure.reporting {
            let core = try options.open(.readWrite)
            defer { try? core.close() }
            let current = try Output.document(core, id)
            let saved = try DatabaseToolsError.wrapping(.ioFailure, "cannot delete \"\(id)\"") {
                try core.saveRevision(id: id, base: current.revisionID, deleted: true, policy: .lastWriteWins) { _ in }
            }
            print(saved?.revisionID?.string ?? "")
        }
    }
}
