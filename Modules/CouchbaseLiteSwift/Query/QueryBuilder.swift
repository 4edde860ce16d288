/// Starts a query, as the Couchbase Lite guide writes them:
///
/// ```swift
/// let query = QueryBuilder
///     .select(SelectResult.expression(Meta.id), SelectResult.property("name"))
///     .from(DataSource.database(database))
///     .where(Expression.property("type").equalTo(Expression.string("hotel")))
///     .orderBy(Ordering.property("name").ascending())
///     .limit(Expression.int(10))
/// for result in try query.execute() { print(result.string(forKey: "name") ?? "") }  // allowed: the caller's code in a doc example
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

/// A step of a builder query: the clauses said so far, offering the clauses that may follow
/// (`Step` is one of ``QueryBuilderStep``'s tags; the steps are named by the aliases ``Select``,
/// ``From``, ``Joins``, ``Where``, ``GroupBy``, ``Having``, ``OrderBy`` and ``Limit``).
///
/// One generic class rather than a subclass per step: every step is a ``Query`` and stores
/// nothing of its own.
public final class QueryStep<Step>: Query, @unchecked Sendable {
    // Unchecked only because Swift checks no subclass: this one adds no stored property, and
    // `Query` stores only Sendable values.
}

/// The tags of ``QueryStep``: which clause a builder query ended with. Each tag conforms to the
/// `Precedes…` protocols of the clauses that may follow it, so each clause is offered by one
/// extension, on every step it may follow (SQL's order: WHERE, GROUP BY, HAVING, ORDER BY, LIMIT).
public enum QueryBuilderStep {
    /// Steps a LIMIT may follow: all but `select` and `limit`.
    public protocol PrecedesLimit {}
    /// Steps an ORDER BY may follow: those before `orderBy`.
    public protocol PrecedesOrderBy: PrecedesLimit {}
    /// Steps a GROUP BY may follow: `from`, `join` and `where`.
    public protocol PrecedesGroupBy: PrecedesOrderBy {}
    /// Steps a WHERE may follow: `from` and `join`.
    public protocol PrecedesWhere: PrecedesGroupBy {}

    /// After `select`.
    public enum Select {}
    /// After `from`.
    public enum From: PrecedesWhere {}
    /// After `join`.
    public enum Joins: PrecedesWhere {}
    /// After `where`.
    public enum Where: PrecedesGroupBy {}
    /// After `groupBy`.
    public enum GroupBy: PrecedesOrderBy {}
    /// After `having`.
    public enum Having: PrecedesOrderBy {}
    /// After `orderBy`.
    public enum OrderBy: PrecedesLimit {}
    /// After `limit`.
    public enum Limit {}
}

/// A query's SELECT: continue with `from`.
public typealias Select = QueryStep<QueryBuilderStep.Select>
/// A query with its data source.
public typealias From = QueryStep<QueryBuilderStep.From>
/// A query with joins.
public typealias Joins = QueryStep<QueryBuilderStep.Joins>
/// A query with a WHERE condition.
public typealias Where = QueryStep<QueryBuilderStep.Where>
/// A query with GROUP BY.
public typealias GroupBy = QueryStep<QueryBuilderStep.GroupBy>
/// A query with HAVING.
public typealias Having = QueryStep<QueryBuilderStep.Having>
/// A sorted query.
public typealias OrderBy = QueryStep<QueryBuilderStep.OrderBy>
/// A query with LIMIT (and OFFSET).
public typealias Limit = QueryStep<QueryBuilderStep.Limit>

extension QueryStep where Step == QueryBuilderStep.Select {
    /// The documents to read.
    public func from(_ dataSource: DataSourceProtocol) -> From {
        var parts = self.parts
        parts.source = dataSource as? DataSourceAs
        return From(parts, database: parts.source?.database)
    }
}

extension QueryStep where Step == QueryBuilderStep.From {
    /// Joins with other data sources.
    public func join(_ joins: JoinProtocol...) -> Joins { Joins(parts { $0.joins = joins }, database: database) }
}

extension QueryStep where Step: QueryBuilderStep.PrecedesWhere {
    /// Keeps the rows that satisfy `expression`. (Discardable: the 2.0 guide's IN example builds
    /// a query as a statement and never runs it.)
    @discardableResult
    public func `where`(_ expression: ExpressionProtocol) -> Where { Where(parts { $0.whereClause = expression }, database: database) }
}

extension QueryStep where Step: QueryBuilderStep.PrecedesGroupBy {
    /// Groups rows by these expressions.
    public func groupBy(_ expressions: ExpressionProtocol...) -> GroupBy { GroupBy(parts { $0.groupBy = expressions }, database: database) }
}

extension QueryStep where Step == QueryBuilderStep.GroupBy {
    /// Keeps the groups that satisfy `expression`.
    public func having(_ expression: ExpressionProtocol) -> Having { Having(parts { $0.having = expression }, database: database) }
}

extension QueryStep where Step: QueryBuilderStep.PrecedesOrderBy {
    /// Sorts the rows.
    public func orderBy(_ orderings: OrderingProtocol...) -> OrderBy { OrderBy(parts { $0.orderBy = orderings }, database: database) }
}

extension QueryStep where Step: QueryBuilderStep.PrecedesLimit {
    /// At most `limit` rows, after skipping `offset`.
    public func limit(_ limit: ExpressionProtocol, offset: ExpressionProtocol? = nil) -> Limit {
        Limit(parts { $0.limit = limit; $0.offset = offset }, database: database)
    }
}
