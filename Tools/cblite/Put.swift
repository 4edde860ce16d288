import CommandLineSupport
import ArgumentParser
import DatabaseTools
import Fleece
import Foundation
import LiteDatabase

/// `cblite put DB DOCID JSON|-`.
struct Put: ParsableCommand {
    static let configuration = CommandConfiguration(
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
            let text = body == "-" ? String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self) : body
            let parsed = try DatabaseToolsError.wrapping(.invalidArgument, "the body of \"\(id)\" is not valid JSON") {
                try FleeceDocument(json: text)
            }
            guard let dict = parsed.root.dictionary else {
                throw DatabaseToolsError(.invalidArgument, "the body of \"\(id)\" must be a JSON object")
            }
            let core = try options.open(.create(engine: engine))
            defer { try? core.close() }
            let saved = try DatabaseToolsError.wrapping(.ioFailure, "cannot save \"\(id)\"") {
                try core.saveRevision(id: id, base: nil, policy: .lastWriteWins) { encoder in
                    encoder.beginDictionary(reservingCapacity: dict.count)
                    for (key, value) in dict where key != "_id" && key != "_rev" {
                        encoder.writeKey(key)
                        encoder.writeValue(value)
                    }
                    encoder.endDictionary()
                }
            }
            print(saved?.revisionID?.string ?? "")
        }
    }
}
