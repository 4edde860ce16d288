/// Document metadata usable in queries: ID, sequence, deletion and expiration.
///
/// ```swift
/// QueryBuilder.select(SelectResult.expression(Meta.id), SelectResult.property("name"))
/// ```
public enum Meta {
    /// The document ID.
    public static var id: MetaExpressionProtocol { MetaExpression(key: "_id", from: nil) }
    /// The sequence of the document's last change.
    public static var sequence: MetaExpressionProtocol { MetaExpression(key: "_sequence", from: nil) }
    /// Whether the document is deleted (a query that tests it also sees deleted documents).
    public static var isDeleted: MetaExpressionProtocol { MetaExpression(key: "_deleted", from: nil) }
    /// When the document expires (milliseconds since 1970), or missing.
    public static var expiration: MetaExpressionProtocol { MetaExpression(key: "_expiration", from: nil) }
}

/// A metadata expression, which can name the data source it belongs to.
public protocol MetaExpressionProtocol: ExpressionProtocol {
    /// The same metadata of the data source `alias` (for joins).
    func from(_ alias: String?) -> ExpressionProtocol
}

struct MetaExpression: MetaExpressionProtocol {
    let key: String
    let from: String?

    var node: QueryNode { .array([.string(from.map { ".\($0).\(key)" } ?? ".\(key)")]) }

    func from(_ alias: String?) -> ExpressionProtocol { MetaExpression(key: key, from: alias) }
}
