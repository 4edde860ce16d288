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

/// Full-text functions: `FullTextFunction.rank("nameIndex")`.
public enum FullTextFunction {
    /// How well each row matched the index's search (higher is better).
    public static func rank(_ indexName: String) -> ExpressionProtocol {
        QueryExpression(.operation("RANK()", .string(indexName)))
    }
}
