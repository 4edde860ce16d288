import ArgumentParser
import CommandLineSupport
import DatabaseConversion
import DatabaseTools
import Fleece
import FoundationEssentials
import LiteDatabase
import LiteQuery
import LiteSupport
import LiteText

/// `cblite query DB QUERY [--params JSON] [--explain] [--limit N] [--objects]`.
struct QueryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "query",
        abstract: "Run a query: a JSON query (starting with { or [) or a SQL++ string.",
        discussion: """
            Prints one JSON array per row, columns in order, a MISSING column as null; \
            --objects prints each row as an object of its columns (MISSING ones left out). \
            QUERY "-" reads a batch from standard input (for differential testing against \
            Couchbase Lite 2.8, Tools/interop): two lines per query, its parameters as a JSON \
            object and the JSON query; each query's rows print as objects keyed by column number \
            (MISSING ones left out), then "#ok" or "#error MESSAGE".
            """)

    @OptionGroup var options: DatabaseOptions

    @Argument(help: "The query: Couchbase Lite's JSON query syntax, or SQL++ (SELECT … FROM _ …).")
    var query: String

    @Option(help: "Parameter values, as a JSON object.")
    var params: String?

    @Flag(help: "Print how the query runs instead of running it.")
    var explain = false

    @Option(help: "Print at most this many rows.")
    var limit: Int?

    @Flag(help: "Print each row as a JSON object.")
    var objects = false

    func run() throws {
        if query == "-" { return try runBatch() }
        try ToolFailure.reporting {
            let trimmed = query.drop { $0.isWhitespace }
            let json: String
            do {
                json = trimmed.hasPrefix("{") || trimmed.hasPrefix("[") ? query : try SQLPlusPlusParser.json(from: query)
            } catch let error as QueryError {
                throw DatabaseToolsError(.invalidArgument, "invalid query: \(error)")
            }
            var core = try options.open(.readOnly)
            defer { try? core.close() }
            let compiled: CompiledQuery
            do {
                compiled = try CompiledQuery(json: json, databaseName: core.bundle.name)
            } catch let error as QueryError {
                throw DatabaseToolsError(.invalidArgument, "invalid query: \(error)")
            }
            try FullTextIndex.openAll(in: core)
            // A full-text index real Couchbase Lite made that has no copy of ours yet, or ours
            // when Couchbase Lite wrote documents since, cannot answer read-only: open for
            // writing, which builds or catches up ours (Couchbase Lite's FTS4 table stays as it
            // is), as any writing open of the file does.
            let unadopted = try compiled.fullTextIndexNames.filter {
                try FullTextIndex.named($0, in: core) == nil && FullTextIndex.isAdoptable($0, in: core)
            }
            let behind = try compiled.fullTextIndexNames.filter { try FullTextIndex.named($0, in: core)?.isBehind(in: core) == true }
            if !unadopted.isEmpty || !behind.isEmpty {
                try core.close()
                core = try options.open(.readWrite)
                try FullTextIndex.openAll(in: core)
                for name in unadopted.sorted() where FullTextIndex.named(name, in: core) != nil {
                    StandardStreams.writeError("cblite: built our copy of Couchbase Lite's full-text index "
                        + "\"\(name)\" (Couchbase Lite's own is unchanged)\n")
                }
            }
            try ValueIndex.openAll(in: core)
            if explain {
                print(json)
                do {
                    print("plan: " + (try QueryExecutor.explain(compiled, in: core, parameters: try parameterValues()))
                          + "; columns: \(compiled.columnNames.joined(separator: ", "))")
                } catch let error as QueryError {
                    throw DatabaseToolsError(.invalidArgument, "query failed: \(error)")
                }
                return
            }
            let rows: [[QueryValue]]
            do {
                rows = try QueryExecutor.run(compiled, in: core, parameters: try parameterValues())
            } catch let error as QueryError {
                throw DatabaseToolsError(.invalidArgument, "query failed: \(error)")
            }
            for row in rows.prefix(limit ?? Int.max) {
                if objects {
                    let members = zip(compiled.columnNames, row).filter { $0.1 != .missing }
                        .map { "\(Self.jsonText(.string($0.0))):\(Self.jsonText($0.1))" }
                    print("{" + members.joined(separator: ",") + "}")
                } else {
                    print("[" + row.map(Self.jsonText).joined(separator: ",") + "]")
                }
            }
        }
    }

    /// Runs the batch on standard input (see the discussion); the file opens for writing once,
    /// so Couchbase Lite's indexes are adopted (or ours caught up) before the first query.
    private func runBatch() throws {
        try ToolFailure.reporting {
            let core = try options.open(.readWrite)
            defer { try? core.close() }
            try FullTextIndex.openAll(in: core)
            try ValueIndex.openAll(in: core)
            while let params = readLine(), let text = readLine() {
                do {
                    let compiled = try CompiledQuery(json: text, databaseName: core.bundle.name)
                    let rows = try QueryExecutor.run(compiled, in: core, parameters: try Self.parameterValues(params))
                    for row in rows {
                        let members = row.enumerated().filter { $0.element != .missing }
                            .map { "\"\($0.offset)\":\(Self.jsonText($0.element))" }
                        print("{" + members.joined(separator: ",") + "}")
                    }
                    print("#ok")
                } catch {
                    print("#error \(error)".split(separator: "\n").joined(separator: " "))
                }
            }
        }
    }

    private func parameterValues() throws -> [String: QueryValue] {
        guard let params else { return [:] }
        return try Self.parameterValues(params)
    }

    private static func parameterValues(_ params: String) throws -> [String: QueryValue] {
        let document = try DatabaseToolsError.wrapping(.invalidArgument, "--params is not valid JSON") {
            try FleeceDocument(json: params)
        }
        guard let dictionary = document.root.dictionary else {
            throw DatabaseToolsError(.invalidArgument, "--params must be a JSON object")
        }
        var values: [String: QueryValue] = [:]
        for (key, value) in dictionary { values[key] = QueryValue(value) }
        return values
    }

    /// A query value as JSON text (MISSING as null).
    static func jsonText(_ value: QueryValue) -> String {
        switch value {
        case .missing, .null: return "null"
        case .bool(let flag): return flag ? "true" : "false"
        case .int(let number): return String(number)
        case .double(let number): return number.isFinite ? "\(number)" : "null"
        case .string(let text): return JSONQuoting.quoted(text)
        case .array(let items): return "[" + items.map(jsonText).joined(separator: ",") + "]"
        case .dictionary(let entries):
            return "{" + entries.keys.sorted().map { "\(jsonText(.string($0))):\(jsonText(entries[$0] ?? .null))" }
                .joined(separator: ",") + "}"
        }
    }
}

/// `cblite index DB NAME SPEC [--fts …]`, `cblite drop-index DB NAME`, `cblite indexes DB`.
struct IndexCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "index",
        abstract: "Create an index: SPEC is a JSON array of expressions (value index) or, with --fts, of properties.")

    @OptionGroup var options: DatabaseOptions

    @Argument(help: "The index name.")
    var name: String

    @Argument(help: #"The indexed expressions, e.g. '[[".name"]]' or, with --fts, '["description"]'."#)
    var spec: String

    @Flag(help: "A full-text index.")
    var fts = false

    @Option(help: "Full-text: the language for stemming and stop words (en, fr, …).")
    var language: String?

    @Flag(help: "Full-text: letters with and without accents match.")
    var ignoreDiacritics = false

    @Flag(help: "Full-text: do not stem words.")
    var noStemming = false

    @Option(help: "Full-text: the stop words, separated by spaces (replacing the language's).")
    var stopWords: String?

    func run() throws {
        try ToolFailure.reporting {
            let document = try DatabaseToolsError.wrapping(.invalidArgument, "SPEC is not valid JSON") {
                try FleeceDocument(json: spec)
            }
            guard let items = document.root.array, items.count > 0 else {
                throw DatabaseToolsError(.invalidArgument, "SPEC must be a non-empty JSON array")
            }
            let core = try options.open(.readWrite)
            defer { try? core.close() }
            if fts {
                var properties: [String] = []
                for item in items {
                    guard let text = item.string ?? item.array?[0]?.string else {
                        throw DatabaseToolsError(.invalidArgument, "a full-text SPEC lists property names")
                    }
                    properties.append(text.hasPrefix(".") ? String(text.dropFirst()) : text)
                }
                let definition = FullTextIndexDefinition(
                    name: name, properties: properties, language: language, ignoresDiacritics: ignoreDiacritics,
                    stemming: !noStemming, stopWords: stopWords.map { $0.split(separator: " ").map(String.init) })
                do {
                    _ = try FullTextIndex.create(definition, in: core)
                } catch let error as TextAnalysisError {
                    throw DatabaseToolsError(.invalidArgument, "cannot create index \"\(name)\": \(error)")
                }
            } else {
                do {
                    try ValueIndex.create(name: name, definition: spec, in: core)
                } catch let error as QueryError {
                    throw DatabaseToolsError(.invalidArgument, "cannot create index \"\(name)\": \(error)")
                }
            }
        }
    }
}

/// `cblite drop-index DB NAME`.
struct DropIndexCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "drop-index", abstract: "Delete an index.")

    @OptionGroup var options: DatabaseOptions

    @Argument(help: "The index name.")
    var name: String

    func run() throws {
        try ToolFailure.reporting {
            let core = try options.open(.readWrite)
            defer { try? core.close() }
            let ftsStore = FullTextIndexDefinition(name: name, properties: []).storeName
            let stores = try core.dataFile.byteKeyStoreNames()
            guard stores.contains(ftsStore) || stores.contains(ValueIndex.storeName(name)) else {
                throw DatabaseToolsError(.notFound, "no index named \"\(name)\"")
            }
            try core.inTransaction { _ in
                try FullTextIndex.delete(name, in: core)
                try ValueIndex.delete(name, in: core)
            }
        }
    }
}

/// `cblite indexes DB`.
struct IndexesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "indexes", abstract: "List the indexes.")

    @OptionGroup var options: DatabaseOptions

    func run() throws {
        try ToolFailure.reporting {
            let core = try options.open(.readOnly)
            defer { try? core.close() }
            for index in try IndexSummary.all(in: core) { print(index.listLine) }
        }
    }
}
