/// A column of a query's results.
///
/// ```swift
/// QueryBuilder.select(SelectResult.expression(Meta.id),
///                     SelectResult.property("name").as("hotel"),
///                     SelectResult.all())
/// ```
public enum SelectResult {
    /// The property at a key path, named after its last component unless `.as(...)` renames it.
    public static func property(_ property: String) -> SelectResultAs {
        SelectResultAs(expression: Expression.property(property), alias: nil)
    }
    /// Any expression.
    public static func expression(_ expression: ExpressionProtocol) -> SelectResultAs {
        SelectResultAs(expression: expression, alias: nil)
    }
    /// The whole document, as a dictionary named after the data source (`.from(alias)` in joins).
    public static func all() -> SelectResultFrom { SelectResultFrom(alias: nil) }
}

/// A result column.
public protocol SelectResultProtocol: Sendable {}

extension SelectResultProtocol {
    var queryNode: QueryNode {
        switch self {
        case let column as SelectResultAs:
            let node = column.expression.queryNode
            return column.alias.map { .operation("AS", node, .string($0)) } ?? node
        case let all as SelectResultFrom:
            return PropertyExpression(keyPath: "", from: all.alias).node
        default:
            return .invalid("\(type(of: self)) is not a result made by the query builder")
        }
    }
}

/// A result column that can be renamed.
public struct SelectResultAs: SelectResultProtocol {
    let expression: ExpressionProtocol
    let alias: String?
    /// The column's name in the results.
    public func `as`(_ alias: String?) -> SelectResultProtocol { SelectResultAs(expression: expression, alias: alias) }
}

/// All properties, of the data source `from(alias)` in a join.
public struct SelectResultFrom: SelectResultProtocol {
    let alias: String?
    /// The data source whose documents to return.
    public func from(_ alias: String?) -> SelectResultProtocol { SelectResultFrom(alias: alias) }
}
