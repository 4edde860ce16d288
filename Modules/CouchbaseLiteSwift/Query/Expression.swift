import Foundation

/// Makes query expressions: properties, literals, parameters and negations.
///
/// ```swift
/// let query = QueryBuilder.select(SelectResult.property("name"))
///     .from(DataSource.database(database))
///     .where(Expression.property("type").equalTo(Expression.string("hotel")))
/// ```
public enum Expression {
    /// The property at `property`, a key path (`"address.city"`, `"tags[0]"`); `.from(alias)`
    /// names the data source in a join.
    public static func property(_ property: String) -> PropertyExpressionProtocol {
        PropertyExpression(keyPath: property, from: nil)
    }

    /// Every property of the document (as one dictionary); `.from(alias)` in a join.
    public static func all() -> PropertyExpressionProtocol {
        PropertyExpression(keyPath: "", from: nil)
    }

    /// A literal: nil, a string, number, boolean, date, array or dictionary of those.
    public static func value(_ value: Any?) -> ExpressionProtocol { QueryExpression(.literal(value)) }
    /// A string literal.
    public static func string(_ value: String?) -> ExpressionProtocol { QueryExpression(value.map { .string($0) } ?? .null) }
    /// A number literal.
    public static func number(_ value: NSNumber?) -> ExpressionProtocol { QueryExpression(.literal(value)) }
    /// An integer literal.
    public static func int(_ value: Int) -> ExpressionProtocol { QueryExpression(.int(Int64(value))) }
    /// A 64-bit integer literal.
    public static func int64(_ value: Int64) -> ExpressionProtocol { QueryExpression(.int(value)) }
    /// A floating-point literal.
    public static func float(_ value: Float) -> ExpressionProtocol { QueryExpression(.double(Double(value))) }
    /// A floating-point literal.
    public static func double(_ value: Double) -> ExpressionProtocol { QueryExpression(.double(value)) }
    /// A boolean literal.
    public static func boolean(_ value: Bool) -> ExpressionProtocol { QueryExpression(.bool(value)) }
    /// A date literal (compared as its ISO-8601 string, as dates are stored).
    public static func date(_ value: Date?) -> ExpressionProtocol { QueryExpression(.literal(value)) }
    /// A dictionary literal.
    public static func dictionary(_ value: [String: Any]?) -> ExpressionProtocol { QueryExpression(.literal(value)) }
    /// An array literal.
    public static func array(_ value: [Any]?) -> ExpressionProtocol { QueryExpression(.literal(value)) }

    /// A parameter, given a value through `query.parameters` before the query runs.
    public static func parameter(_ name: String) -> ExpressionProtocol {
        QueryExpression(.array([.string("$" + name)]))
    }

    /// `-expression`.
    public static func negated(_ expression: ExpressionProtocol) -> ExpressionProtocol {
        QueryExpression(.operation("-", expression.queryNode))
    }

    /// `NOT expression`.
    public static func not(_ expression: ExpressionProtocol) -> ExpressionProtocol {
        QueryExpression(.operation("NOT", expression.queryNode))
    }
}

/// A property expression, which can name the data source it belongs to.
public protocol PropertyExpressionProtocol: ExpressionProtocol {
    /// The same property of the data source `alias` (for joins).
    func from(_ alias: String?) -> ExpressionProtocol
}

/// A document property: `[".path"]`, or `[".alias.path"]` with a data source.
struct PropertyExpression: PropertyExpressionProtocol {
    let keyPath: String
    let from: String?

    var node: QueryNode {
        let path: String
        switch (from, keyPath.isEmpty) {
        case (nil, true): path = "."
        case (nil, false): path = "." + keyPath
        case (let alias?, true): path = "." + alias + "."
        case (let alias?, false): path = "." + alias + "." + keyPath
        }
        return .array([.string(path)])
    }

    func from(_ alias: String?) -> ExpressionProtocol { PropertyExpression(keyPath: keyPath, from: alias) }
}
