import ArgumentParser

/// `cblite select DB "name FROM _ WHERE …"`: the real tool's N1QL command (it puts `SELECT`
/// in front of its argument), run as a SQL++ `query`.
struct Select: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "select",
        abstract: "Run a SQL++ query given without its leading SELECT (as the real cblite select).")

    @Argument(help: "The database bundle (…/name.cblite2).")
    var database: String

    @Argument(help: "The query after SELECT: \"name FROM _ WHERE type = 'hotel'\" (a leading SELECT is allowed).")
    var query: String

    @Option(help: "Print at most this many rows.")
    var limit: Int?

    @Flag(help: "Print each row as a JSON object.")
    var objects = false

    func run() throws {
        let trimmed = query.drop { $0.isWhitespace }
        let sql = trimmed.prefix(7).uppercased() == "SELECT " ? String(trimmed) : "SELECT " + trimmed
        var arguments = [database, sql]
        if let limit { arguments += ["--limit", String(limit)] }
        if objects { arguments.append("--objects") }
        try QueryCommand.parse(arguments).run()
    }
}
