import CommandLineSupport
import ArgumentParser
import DatabaseConversion
import DatabaseTools
import Glibc
import LiteDatabase
import LiteStorage

/// `cblite ls DB [-l] [--limit N] [--offset N] [--desc] [--deleted] [--json]`.
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

    @Flag(name: .customShort("l"), help: "Long format, as Couchbase Lite 2.8's cblite: ID, revision ID, flags (deleted, conflicted, attachments), sequence, size.")
    var long = false

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
            if long, offset > 0 { print("(Skipping first \(offset) docs)") }
            var listed = 0
            var skipped = 0
            while limit.map({ listed < $0 }) ?? true, let record = try cursor.next() {
                if skipped < offset {
                    skipped += 1
                    continue
                }
                listed += 1
                if json {
                    ids.append(record.key)
                } else if long {
                    if listed == 1 { print(Self.longHeader) }
                    print(Self.longLine(record))
                } else {
                    print(record.key)
                }
            }
            if json { print(try Output.json(ids)) }
            if long, listed == 0 { print("(No documents)") }
            // As the real tool: a note when the limit left documents out.
            if long, let limit, listed == limit, try cursor.next() != nil { print("(Stopping after \(limit) docs)") }
        }
    }

    /// The long listing's heading, as the real tool prints it (without its terminal underline).
    static let longHeader = "Document ID             Rev ID     Flags   Seq     Size"

    /// One document in the long listing: the ID padded to 24 columns, the revision ID cut and
    /// padded to 10, `d`/`c`/`a` flags, the sequence in 7 columns and the stored size in KiB
    /// with one significant digit (C++ `setprecision(1)`), as Couchbase Lite 2.8's cblite shows.
    static func longLine(_ record: Record) -> String {
        let revision = ((try? RevisionID(binary: record.version))?.string ?? "").prefix(10)
        var line = record.key + String(repeating: " ", count: max(0, 24 - record.key.utf8.count))
        line += revision + String(repeating: " ", count: 10 - revision.count)
        line += record.flags.contains(.deleted) ? "d" : "-"
        line += record.flags.contains(.conflicted) ? "c" : "-"
        line += record.flags.contains(.hasAttachments) ? "a" : "-"
        line += " " + cFormat("%7lld", Int64(clamping: record.sequence)) + " "
        line += cFormat("%7.1g", Double(record.bodySize) / 1024) + "K"
        return line
    }

    private static func cFormat(_ format: String, _ arguments: CVarArg...) -> String {
        withVaList(arguments) { list in
            var buffer = [CChar](repeating: 0, count: 64)
            _ = vsnprintf(&buffer, buffer.count, format, list)
            return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
    }
}
