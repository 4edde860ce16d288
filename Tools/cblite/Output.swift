import DatabaseConversion
import DatabaseTools
import FoundationEssentials
import Glibc
import LiteDatabase
import LiteSupport

/// Output helpers for the subcommands.
enum Output {
    /// Whether standard output is a terminal (pretty JSON, progress bars).
    static var stdoutIsTerminal: Bool { isatty(STDOUT_FILENO) != 0 }

    /// `value` as one line of JSON.
    static func json(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    /// A progress display on stderr (a bar on a terminal, lines otherwise, nothing when quiet).
    static func progress(quiet: Bool) -> ProgressDisplay {
        let style: ProgressDisplay.Style = quiet ? .quiet : (isatty(STDERR_FILENO) != 0 ? .bar : .lines)
        return ProgressDisplay(style: style) { StandardStreams.writeError($0) }
    }

    /// The stored document `id`, or a not-found error naming it.
    static func document(_ core: DatabaseCore, _ id: String, allowDeleted: Bool = false) throws -> StoredDocument {
        guard let document = try core.document(id: id), allowDeleted || !document.isDeleted else {
            throw DatabaseToolsError(.notFound, "no document \"\(id)\" in \(core.bundle.path)")
        }
        return document
    }
}
