/// Joins of a query's data source with another:
///
/// ```swift
/// QueryBuilder.select(SelectResult.expression(Expression.property("name").from("airline")))
///     .from(DataSource.database(database).as("route"))
///     .join(Join.join(DataSource.database(database).as("airline"))
///         .on(Meta.id.from("airline").equalTo(Expression.property("airlineid").from("route"))))
/// ```
public enum Join {
    /// An inner join: rows whose two sides match.
    public static func join(_ dataSource: DataSourceProtocol) -> JoinOnProtocol { JoinOn(kind: "INNER", source: dataSource) }
    /// An inner join.
    public static func innerJoin(_ dataSource: DataSourceProtocol) -> JoinOnProtocol { JoinOn(kind: "INNER", source: dataSource) }
    /// A left outer join: every left row, with the right side missing when nothing matches.
    public static func leftJoin(_ dataSource: DataSourceProtocol) -> JoinOnProtocol { JoinOn(kind: "LEFT OUTER", source: dataSource) }
    /// A left outer join.
    public static func leftOuterJoin(_ dataSource: DataSourceProtocol) -> JoinOnProtocol {
        JoinOn(kind: "LEFT OUTER", source: dataSource)
    }
    /// Every pair of rows.
    public static func crossJoin(_ dataSource: DataSourceProtocol) -> JoinProtocol { JoinClause(kind: "CROSS", source: dataSource, on: nil) }
}

/// A join.
public protocol JoinProtocol: Sendable {}

/// A join waiting for its condition.
public protocol JoinOnProtocol: JoinProtocol {
    /// The condition rows of the two sides must meet.
    func on(_ expression: ExpressionProtocol) -> JoinProtocol
}

struct JoinOn: JoinOnProtocol {
    let kind: String
    let source: DataSourceProtocol
    func on(_ expression: ExpressionProtocol) -> JoinProtocol { JoinClause(kind: kind, source: source, on: expression) }
}

struct JoinClause: JoinProtocol {
    let kind: String
    let source: DataSourceProtocol
    let on: ExpressionProtocol?
}

extension JoinProtocol {
    var queryNode: QueryNode {
        let clause: JoinClause
        switch self {
        case let complete as JoinClause: clause = complete
        case let open as JoinOn: return .invalid("the \(open.kind.lowercased()) join has no ON condition")
        default: return .invalid("\(type(of: self)) is not a join made by the query builder")
        }
        guard let source = clause.source as? DataSourceAs, let alias = source.alias else {
            return .invalid("a joined data source needs an alias: DataSource.database(db).as(\"name\")")
        }
        var entries: [String: QueryNode] = ["AS": .string(alias), "JOIN": .string(clause.kind)]
        if let on = clause.on { entries["ON"] = on.queryNode }
        return .dictionary(entries)
    }
}
