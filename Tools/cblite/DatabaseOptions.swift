import ArgumentParser
import DatabaseTools
import Foundation
import LiteDatabase

/// The database argument and `--upgrade`, shared by every subcommand.
struct DatabaseOptions: ParsableArguments {
    @Argument(help: "The database bundle (…/name.cblite2).")
    var database: String

    @Flag(help: "Upgrade a Couchbase Lite 1.x database in place before using it.")
    var upgrade = false

    /// Opens the database; upgrades a 1.x one first only with `--upgrade`.
    func open(_ mode: DatabaseLocation.AccessMode) throws -> DatabaseCore {
        let location = try DatabaseLocation(path: database)
        if upgrade, case .legacySQLite = location.format {
            try LegacyUpgrade.upgradeInPlace(location, engine: try DatabaseLocation.engine(named: "sqlite"))
        }
        return try location.open(mode)
    }
}

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
        return ProgressDisplay(style: style) { FileHandle.standardError.write(Data($0.utf8)) }
    }

    /// The stored document `id`, or a not-found error naming it.
    static func document(_ core: DatabaseCore, _ id: String, allowDeleted: Bool = false) throws -> StoredDocument {
        guard let document = try core.document(id: id), allowDeleted || !document.isDeleted else {
            throw DatabaseToolsError(.notFound, "no document \"\(id)\" in \(core.bundle.path)")
        }
        return document
    }
}
