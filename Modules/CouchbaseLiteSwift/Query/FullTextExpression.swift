/// Full-text search in queries: `FullTextExpression.index("nameIndex").match("buy")`.
public enum FullTextExpression {
    /// The full-text index to search.
    public static func index(_ name: String) -> FullTextExpressionProtocol { FullTextIndexReference(name: name) }
}

/// A full-text index in a query.
public protocol FullTextExpressionProtocol: Sendable {
    /// Whether the indexed text matches `query` (terms, `AND`/`OR`/`NOT`, `"phrases"`, `prefix*`,
    /// `NEAR`).
    func match(_ query: String) -> ExpressionProtocol
}

struct FullTextIndexReference: FullTextExpressionProtocol {
    let name: String
    func match(_ query: String) -> ExpressionProtocol { FullTextMatchExpression(index: name, query: query) }
}

struct FullTextMatchExpression: ExpressionProtocol {
    let index: String
    let query: String
    var node: QueryNode { .operation("MATCH()", .string(index), .string(query)) }
}

/// Full-text functions: `FullTextFunction.rank("nameIndex")`, `FullTextFunction.matchOffsets("nameIndex")`.
public enum FullTextFunction {
    /// Where the words that matched are, for highlighting: an array with one dictionary per
    /// matched word, in property then text order — `property` (the indexed property's path),
    /// `start` and `length` (UTF-8 bytes in that property's text, as SQLite FTS4's
    /// `offsets()` counts them). The query's WHERE must match against the same index.
    ///
    /// ```swift
    /// let rows = try QueryBuilder.select(SelectResult.expression(Meta.id),
    ///                                    SelectResult.expression(FullTextFunction.matchOffsets("descFTS")))
    ///     .from(DataSource.database(database))
    ///     .where(FullTextExpression.index("descFTS").match("pool"))
    ///     .execute()
    /// // (row.value(at: 1) as? ArrayObject)?.dictionary(at: 0)?.int(forKey: "start")
    /// ```
    public static func matchOffsets(_ indexName: String) -> ExpressionProtocol {
        QueryExpression(.operation("MATCH_OFFSETS()", .string(indexName)))
    }

    /// How well each row matched the index's search (higher is better).
    public static func rank(_ indexName: String) -> ExpressionProtocol {
        QueryExpression(.operation("RANK()", .string(indexName)))
    }
}
