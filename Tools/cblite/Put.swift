import ArgumentParser
import CommandLineSupport
import DatabaseConversion
import DatabaseTools
import Fleece
import FoundationEssentials
import LiteDatabase
import LiteSupport

/// `cblite put DB DOCID JSON|-`.
struct Put: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "put",
        abstract: "Save a document (a JSON object, or - to read it from stdin); creates the database if needed.")

    @OptionGroup var options: DatabaseOptions

    @Argument(help: "The document ID.")
    var id: String

    @Argument(help: "The body as a JSON object, or - for stdin.")
    var body: String

    @Option(help: "The engine of a new database: sqlite (default) or rocksdb.")
    var engine: String?

    func run() throws {
        try ToolFailure.reporting {
            let text = body == "-" ? String(decoding: StandardStreams.readInput(), as: UTF8.self) : body
            let json = Array(text.utf8)
            // Checked before the database is opened or created: bad input changes nothing.
            try DatabaseToolsError.wrapping(.invalidArgument, "the body of \"\(id)\" is not valid JSON") {
                try json.withUnsafeBytes { try JSONConverter.validate(json: $0) }
            }
            guard json.first(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }) == UInt8(ascii: "{") else {
                throw DatabaseToolsError(.invalidArgument, "the body of \"\(id)\" must be a JSON object")
            }
            let core = try options.open(.create(engine: engine))
            defer { try? core.close() }
            // The text goes straight into the encoder, in its own key order, as Couchbase Lite
            // encodes it, so the revision ID is the one it would give.
            let saved = try DatabaseToolsError.wrapping(.ioFailure, "cannot save \"\(id)\"") {
                try core.saveRevision(id: id, base: nil, policy: .lastWriteWins) { encoder in
                    try json.withUnsafeBytes { _ = try JSONConverter.write(json: $0, to: encoder, skipping: ["_id", "_rev"]) }
                }
            }
            print(saved?.revisionID?.string ?? "")
        }
    }
}
