/// How query results are sorted: `Ordering.property("name").descending()`.
public enum Ordering {
    /// By a property (ascending unless `.descending()`).
    public static func property(_ property: String) -> SortOrder { SortOrder(expression: Expression.property(property), isDescending: false) }
    /// By any expression.
    public static func expression(_ expression: ExpressionProtocol) -> SortOrder { SortOrder(expression: expression, isDescending: false) }
}

/// A sort key.
public protocol OrderingProtocol: Sendable {}

/// A sort key whose direction can be chosen.
public struct SortOrder: OrderingProtocol {
    let expression: ExpressionProtocol
    let isDescending: Bool
    /// Smallest first (N1QL collation: missing, null, booleans, numbers, strings, arrays, objects).
    public func ascending() -> OrderingProtocol { SortOrder(expression: expression, isDescending: false) }
    /// Largest first.
    public func descending() -> OrderingProtocol { SortOrder(expression: expression, isDescending: true) }
}

extension OrderingProtocol {
    var queryNode: QueryNode {
        guard let order = self as? SortOrder else {
            return .invalid("\(type(of: self)) is not an ordering made by the query builder")
        }
        let node = order.expression.queryNode
        return order.isDescending ? .operation("DESC", node) : node
    }
}
