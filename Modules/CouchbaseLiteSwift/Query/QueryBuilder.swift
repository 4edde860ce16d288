/// Starts a query, as the Couchbase Lite guide writes them:
///
/// ```swift
/// let query = QueryBuilder
///     .select(SelectResult.expression(Meta.id), SelectResult.property("name"))
///     .from(DataSource.database(database))
///     .where(Expression.property("type").equalTo(Expression.string("hotel")))
///     .orderBy(Ordering.property("name").ascending())
///     .limit(Expression.int(10))
/// for result in try query.execute() { print(result.string(forKey: "name") ?? "") }
/// ```
public enum QueryBuilder {
    /// The columns of each result row.
    public static func select(_ results: SelectResultProtocol...) -> Select { select(results) }
    /// The columns of each result row.
    public static func select(_ results: [SelectResultProtocol]) -> Select {
        Select(QueryParts(results: results))
    }
    /// The columns of each result row, without duplicate rows.
    public static func selectDistinct(_ results: SelectResultProtocol...) -> Select { selectDistinct(results) }
    /// The columns of each result row, without duplicate rows.
    public static func selectDistinct(_ results: [SelectResultProtocol]) -> Select {
        Select(QueryParts(distinct: true, results: results))
    }
}

/// A query's SELECT: continue with `from`.
public final class Select: Query, @unchecked Sendable {
    // @unchecked: immutable parts; the base class guards its own state.
    /// The documents to read.
    public func from(_ dataSource: DataSourceProtocol) -> From {
        var parts = self.parts
        parts.source = dataSource as? DataSourceAs
        return From(parts, database: parts.source?.database)
    }
}

/// A query with its data source.
public final class From: Query, @unchecked Sendable {
    /// Joins with other data sources.
    public func join(_ joins: JoinProtocol...) -> Joins { Joins(parts { $0.joins = joins }, database: database) }
    /// Keeps the rows that satisfy `expression`. (Discardable: the 2.0 guide's IN example builds
    /// a query as a statement and never runs it.)
    @discardableResult
    public func `where`(_ expression: ExpressionProtocol) -> Where { Where(parts { $0.whereClause = expression }, database: database) }
    /// Groups rows by these expressions.
    public func groupBy(_ expressions: ExpressionProtocol...) -> GroupBy { GroupBy(parts { $0.groupBy = expressions }, database: database) }
    /// Sorts the rows.
    public func orderBy(_ orderings: OrderingProtocol...) -> OrderBy { OrderBy(parts { $0.orderBy = orderings }, database: database) }
    /// At most `limit` rows, after skipping `offset`.
    public func limit(_ limit: ExpressionProtocol, offset: ExpressionProtocol? = nil) -> Limit {
        Limit(parts { $0.limit = limit; $0.offset = offset }, database: database)
    }
}

/// A query with joins.
public final class Joins: Query, @unchecked Sendable {
    /// Keeps the rows that satisfy `expression`.
    public func `where`(_ expression: ExpressionProtocol) -> Where { Where(parts { $0.whereClause = expression }, database: database) }
    /// Groups rows by these expressions.
    public func groupBy(_ expressions: ExpressionProtocol...) -> GroupBy { GroupBy(parts { $0.groupBy = expressions }, database: database) }
    /// Sorts the rows.
    public func orderBy(_ orderings: OrderingProtocol...) -> OrderBy { OrderBy(parts { $0.orderBy = orderings }, database: database) }
    /// At most `limit` rows, after skipping `offset`.
    public func limit(_ limit: ExpressionProtocol, offset: ExpressionProtocol? = nil) -> Limit {
        Limit(parts { $0.limit = limit; $0.offset = offset }, database: database)
    }
}

/// A query with a WHERE condition.
public final class Where: Query, @unchecked Sendable {
    /// Groups rows by these expressions.
    public func groupBy(_ expressions: ExpressionProtocol...) -> GroupBy { GroupBy(parts { $0.groupBy = expressions }, database: database) }
    /// Sorts the rows.
    public func orderBy(_ orderings: OrderingProtocol...) -> OrderBy { OrderBy(parts { $0.orderBy = orderings }, database: database) }
    /// At most `limit` rows, after skipping `offset`.
    public func limit(_ limit: ExpressionProtocol, offset: ExpressionProtocol? = nil) -> Limit {
        Limit(parts { $0.limit = limit; $0.offset = offset }, database: database)
    }
}

/// A query with GROUP BY.
public final class GroupBy: Query, @unchecked Sendable {
    /// Keeps the groups that satisfy `expression`.
    public func having(_ expression: ExpressionProtocol) -> Having { Having(parts { $0.having = expression }, database: database) }
    /// Sorts the rows.
    public func orderBy(_ orderings: OrderingProtocol...) -> OrderBy { OrderBy(parts { $0.orderBy = orderings }, database: database) }
    /// At most `limit` rows, after skipping `offset`.
    public func limit(_ limit: ExpressionProtocol, offset: ExpressionProtocol? = nil) -> Limit {
        Limit(parts { $0.limit = limit; $0.offset = offset }, database: database)
    }
}

/// A query with HAVING.
public final class Having: Query, @unchecked Sendable {
    /// Sorts the rows.
    public func orderBy(_ orderings: OrderingProtocol...) -> OrderBy { OrderBy(parts { $0.orderBy = orderings }, database: database) }
    /// At most `limit` rows, after skipping `offset`.
    public func limit(_ limit: ExpressionProtocol, offset: ExpressionProtocol? = nil) -> Limit {
        Limit(parts { $0.limit = limit; $0.offset = offset }, database: database)
    }
}

/// A sorted query.
public final class OrderBy: Query, @unchecked Sendable {
    /// At most `limit` rows, after skipping `offset`.
    public func limit(_ limit: ExpressionProtocol, offset: ExpressionProtocol? = nil) -> Limit {
        Limit(parts { $0.limit = limit; $0.offset = offset }, database: database)
    }
}

/// A query with LIMIT (and OFFSET).
public final class Limit: Query, @unchecked Sendable {}
