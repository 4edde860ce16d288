import Foundation

/// A query expression: a property, a literal, a parameter, or an operation on expressions.
/// Made with ``Expression``, ``Function``, ``Meta``, ``ArrayExpression`` and friends, combined
/// with the methods below, and used in `where`, `orderBy`, `SelectResult.expression` and so on.
///
/// ```swift
/// let hotelsInFrance = Expression.property("type").equalTo(Expression.string("hotel"))
///     .and(Expression.property("country").equalTo(Expression.string("France")))
/// ```
public protocol ExpressionProtocol: Sendable {}

/// The one concrete expression: the node of Couchbase Lite's JSON query syntax it compiles to.
struct QueryExpression: ExpressionProtocol {
    let node: QueryNode
    init(_ node: QueryNode) { self.node = node }
}

extension ExpressionProtocol {
    /// The JSON query node of this expression.
    var queryNode: QueryNode {
        if let expression = self as? QueryExpression { return expression.node }
        if let property = self as? PropertyExpression { return property.node }
        if let meta = self as? MetaExpression { return meta.node }
        if let variable = self as? VariableExpression { return variable.node }
        if let match = self as? FullTextMatchExpression { return match.node }
        return .invalid("\(type(of: self)) is not an expression made by the query builder")
    }

    private func binary(_ op: String, _ other: ExpressionProtocol) -> ExpressionProtocol {
        QueryExpression(.operation(op, queryNode, other.queryNode))
    }

    // MARK: Arithmetic

    /// `self * expression`.
    public func multiply(_ expression: ExpressionProtocol) -> ExpressionProtocol { binary("*", expression) }
    /// `self / expression`.
    public func divide(_ expression: ExpressionProtocol) -> ExpressionProtocol { binary("/", expression) }
    /// `self % expression`.
    public func modulo(_ expression: ExpressionProtocol) -> ExpressionProtocol { binary("%", expression) }
    /// `self + expression`.
    public func add(_ expression: ExpressionProtocol) -> ExpressionProtocol { binary("+", expression) }
    /// `self - expression`.
    public func subtract(_ expression: ExpressionProtocol) -> ExpressionProtocol { binary("-", expression) }

    // MARK: Comparison

    /// `self < expression` (N1QL collation across types).
    public func lessThan(_ expression: ExpressionProtocol) -> ExpressionProtocol { binary("<", expression) }
    /// `self <= expression`.
    public func lessThanOrEqualTo(_ expression: ExpressionProtocol) -> ExpressionProtocol { binary("<=", expression) }
    /// `self > expression`.
    public func greaterThan(_ expression: ExpressionProtocol) -> ExpressionProtocol { binary(">", expression) }
    /// `self >= expression`.
    public func greaterThanOrEqualTo(_ expression: ExpressionProtocol) -> ExpressionProtocol { binary(">=", expression) }
    /// `self = expression`.
    public func equalTo(_ expression: ExpressionProtocol) -> ExpressionProtocol { binary("=", expression) }
    /// `self != expression`.
    public func notEqualTo(_ expression: ExpressionProtocol) -> ExpressionProtocol { binary("!=", expression) }

    // MARK: Patterns

    /// `self LIKE pattern`: `%` matches any run of characters, `_` one character; case-
    /// insensitive, as the 2.0 guide describes.
    public func like(_ expression: ExpressionProtocol) -> ExpressionProtocol { binary("LIKE", expression) }
    /// Whether `self` matches the regular expression (case-sensitive; matches anywhere).
    public func regex(_ expression: ExpressionProtocol) -> ExpressionProtocol { binary("REGEXP_LIKE()", expression) }

    // MARK: Identity and missing values

    /// `self IS expression` (true for null IS null and missing IS missing).
    public func `is`(_ expression: ExpressionProtocol) -> ExpressionProtocol { binary("IS", expression) }
    /// `self IS NOT expression`.
    public func isNot(_ expression: ExpressionProtocol) -> ExpressionProtocol { binary("IS NOT", expression) }
    /// Whether `self` is null or missing.
    public func isNullOrMissing() -> ExpressionProtocol {
        QueryExpression(.operation("OR", .operation("IS", queryNode, .null), .operation("IS", queryNode, .operation("MISSING"))))
    }
    /// Whether `self` is neither null nor missing.
    public func notNullOrMissing() -> ExpressionProtocol {
        QueryExpression(.operation("NOT", isNullOrMissing().queryNode))
    }

    // MARK: Logic

    /// `self AND expression`.
    public func and(_ expression: ExpressionProtocol) -> ExpressionProtocol { binary("AND", expression) }
    /// `self OR expression`.
    public func or(_ expression: ExpressionProtocol) -> ExpressionProtocol { binary("OR", expression) }

    // MARK: Ranges and sets

    /// `self BETWEEN lower AND upper` (both bounds included).
    public func between(_ expression1: ExpressionProtocol, and expression2: ExpressionProtocol) -> ExpressionProtocol {
        QueryExpression(.operation("BETWEEN", queryNode, expression1.queryNode, expression2.queryNode))
    }
    /// `self IN [expressions…]`.
    public func `in`(_ expressions: [ExpressionProtocol]) -> ExpressionProtocol {
        QueryExpression(.operation("IN", queryNode, .operation("[]", operands: expressions.map(\.queryNode))))
    }

    // MARK: Collation

    /// Compares `self` with the given collation (`Collation.unicode().ignoreCase(true)`).
    public func collate(_ collation: CollationProtocol) -> ExpressionProtocol {
        QueryExpression(.operation("COLLATE", collation.queryNode, queryNode))
    }
}
