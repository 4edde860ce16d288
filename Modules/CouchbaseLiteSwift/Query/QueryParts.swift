/// What a builder query has said so far; each step of the chain copies it and adds its part.
struct QueryParts: Sendable {
    var distinct = false
    var results: [SelectResultProtocol] = []
    var source: DataSourceAs?
    var joins: [JoinProtocol] = []
    var whereClause: ExpressionProtocol?
    var groupBy: [ExpressionProtocol] = []
    var having: ExpressionProtocol?
    var orderBy: [OrderingProtocol] = []
    var limit: ExpressionProtocol?
    var offset: ExpressionProtocol?

    /// The query in Couchbase Lite's JSON query syntax.
    var node: QueryNode {
        var entries: [String: QueryNode] = [:]
        if !results.isEmpty { entries["WHAT"] = .array(results.map(\.queryNode)) }
        if distinct { entries["DISTINCT"] = .bool(true) }
        var from: [QueryNode] = []
        if let alias = source?.alias { from.append(.dictionary(["AS": .string(alias)])) }
        if !joins.isEmpty {
            if source?.alias == nil { from.append(.invalid("a query with joins needs an alias on its main data source")) }
            from += joins.map(\.queryNode)
        }
        if !from.isEmpty { entries["FROM"] = .array(from) }
        if let whereClause { entries["WHERE"] = whereClause.queryNode }
        if !groupBy.isEmpty { entries["GROUP_BY"] = .array(groupBy.map(\.queryNode)) }
        if let having { entries["HAVING"] = having.queryNode }
        if !orderBy.isEmpty { entries["ORDER_BY"] = .array(orderBy.map(\.queryNode)) }
        if let limit { entries["LIMIT"] = limit.queryNode }
        if let offset { entries["OFFSET"] = offset.queryNode }
        return .dictionary(entries)
    }
}
