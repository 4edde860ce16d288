import CommandLineSupport
import ArgumentParser
import DatabaseTools
import LiteStorage

/// `cblite ls DB [--limit N] [--offset N] [--desc] [--deleted] [--json]`.
struct List: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "ls", abstract: "List document IDs, one per line.")

    @OptionGroup var options: DatabaseOptions

    @Option(help: "List at most this many.")
    var limit: Int?

    @Option(help: "Skip this many first.")
    var offset = 0

    @Flag(help: "Descending ID order.")
    var desc = false

    @Flag(help: "Include deleted documents.")
    var deleted = false

    @Flag(help: "Print a JSON array of IDs.")
    var json = false

    func validate() throws {
        guard offset >= 0, (limit ?? 0) >= 0 else { throw ValidationError("--limit and --offset must not be negative") }
    }

    func run() throws {
        try ToolFailure.reporting {
            let core = try options.open(.readOnly)
            defer { try? core.close() }
            let cursor = try DatabaseToolsError.wrapping(.ioFailure, "cannot list \(core.bundle.path)") {
                try core.documents.enumerate(options: RecordEnumerationOptions(
                    includeDeleted: deleted, descending: desc, content: .metaOnly))
            }
            defer { cursor.close() }
            var ids: [String] = []
            var listed = 0
            var skipped = 0
            while limit.map({ listed < $0 }) ?? true, let record = try cursor.next() {
                if skipped < offset {
                    skipped += 1
                    continue
                }
                listed += 1
                if json { ids.append(record.key) } else { print(record.key) }
            }
            if json { print(try Output.json(ids)) }
        }
    }
}
