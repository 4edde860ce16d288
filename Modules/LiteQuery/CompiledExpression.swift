import Fleece

/// An expression of a query, compiled from Couchbase Lite's JSON query syntax.
package indirect enum CompiledExpression: Sendable, Equatable {
    case literal(QueryValue)
    /// A document property: the data source alias (nil: the only one) and the key path.
    case property(alias: String?, path: [FleecePath.Component])
    /// Document metadata: `_id`, `_sequence`, `_deleted`, `_expiration`.
    case meta(alias: String?, key: String)
    case parameter(String)
    /// An ANY/EVERY variable, with a key path into it.
    case variable(String, path: [FleecePath.Component])
    /// An operator (`=`, `AND`, `LIKE`, …) or a function (`LOWER()`), upper-cased.
    case call(String, [CompiledExpression])
    /// ANY / EVERY / ANY AND EVERY.
    case quantified(String, variable: String, array: CompiledExpression, condition: CompiledExpression)
    /// Comparison under a collation.
    case collate(ignoreCase: Bool, ignoreAccents: Bool, CompiledExpression)

    /// Whether the expression is (or contains) an aggregate function.
    var hasAggregate: Bool {
        switch self {
        case .call(let name, let operands):
            return QueryFunctions.aggregates.contains(name) || operands.contains(where: \.hasAggregate)
        case .quantified(_, _, let array, let condition): return array.hasAggregate || condition.hasAggregate
        case .collate(_, _, let inner): return inner.hasAggregate
        default: return false
        }
    }

    /// The full-text searches in the expression: (index name, match text) of each `MATCH()`.
    var fullTextSearches: [(index: String, text: String)] {
        switch self {
        case .call("MATCH()", let operands):
            if operands.count == 2, case .literal(.string(let index)) = operands[0], case .literal(.string(let text)) = operands[1] {
                return [(index, text)]
            }
            return []
        case .call(_, let operands): return operands.flatMap(\.fullTextSearches)
        default: return []
        }
    }

    /// The parameters the expression uses.
    var parameterNames: Set<String> {
        switch self {
        case .parameter(let name): return [name]
        case .call(_, let operands): return operands.reduce(into: []) { $0.formUnion($1.parameterNames) }
        case .quantified(_, _, let array, let condition): return array.parameterNames.union(condition.parameterNames)
        case .collate(_, _, let inner): return inner.parameterNames
        default: return []
        }
    }

    /// The result column name Couchbase Lite gives an unnamed column of this expression.
    var columnName: String? {
        switch self {
        case .property(let alias, let path):
            if path.isEmpty { return alias ?? "*" }
            if case .key(let key)? = path.last { return key }
            return nil
        case .meta(_, let key): return String(key.dropFirst())
        default: return nil
        }
    }
}
