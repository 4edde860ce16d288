import Fleece
import LiteDatabase
import LiteStorage
import LiteText

/// Runs a compiled query over a database's documents in one read snapshot: the first source
/// read through a value index or a scan, then each join and UNNEST, the rest of WHERE, GROUP BY
/// with aggregates and HAVING, DISTINCT, ORDER BY (N1QL collation), OFFSET and LIMIT.
package enum QueryExecutor {
    /// The result rows, each one value per column.
    package static func run(_ query: CompiledQuery, in core: DatabaseCore,
                            parameters: [String: QueryValue]) throws -> [[QueryValue]] {
        if let unset = query.runCache.parameterNames({ query.parameterNames }).subtracting(parameters.keys).sorted().first {
            throw QueryError("parameter $\(unset) has no value; set it in the query's parameters")
        }
        var evaluator = QueryEvaluator(parameters: parameters)
        let fullTextCandidates = try searchFullText(query, in: core, evaluator: &evaluator)
        try core.checkOpen()
        let (firstWhere, laterWhere) = splitWhere(query)
        var rows: [QueryRow] = []
        var inOutputOrder = false
        try core.dataFile.withReadSnapshot {
            rows = try readFirstSource(query, where: firstWhere, in: core, evaluator: evaluator,
                                       fullTextCandidates: fullTextCandidates, inOutputOrder: &inOutputOrder)
            for join in query.joins {
                rows = try expand(rows, by: join, in: core, evaluator: evaluator,
                                  keeping: extractablePaths(query, joined: join.alias))
            }
            if let laterWhere { rows = try rows.filter { try evaluator.evaluate(laterWhere, $0).isTruthy } }
        }
        if inOutputOrder {
            // Sorted and cut to OFFSET + LIMIT rows or a few more already (no joins, grouping or DISTINCT).
            let (offset, limit) = try offsetAndLimit(query, evaluator)
            let wanted = rows.dropFirst(offset).prefix(limit ?? Int.max)
            var result: [[QueryValue]] = []
            result.reserveCapacity(wanted.count)
            for row in wanted { result.append(try query.columns.map { try evaluator.evaluate($0.expression, row) }) }
            return result
        }
        return try output(rows, of: query, evaluator: evaluator)
    }

    /// How `query` runs: which index with which bounds or a scan, then each join's method.
    package static func explain(_ query: CompiledQuery, in core: DatabaseCore, parameters: [String: QueryValue]) throws -> String {
        let evaluator = QueryEvaluator(parameters: parameters)
        let (firstWhere, _) = splitWhere(query)
        var lines: [String]
        let limited = try topCount(query, evaluator) != nil
        if let (index, text) = QueryPlanner.fullTextDriver(firstWhere) {
            lines = ["full-text index \"\(index)\" gives the documents matching \"\(text)\", each read by ID and checked against WHERE"]
            for join in query.joins {
                lines.append(JoinProbe(join, joinedAliases: Set(query.joins.map(\.alias)), in: core).description)
            }
            return lines.joined(separator: "; then ")
        }
        let ordered = limited && query.joins.isEmpty && query.groupBy.isEmpty && !query.distinct && !query.orderBy.isEmpty
            && !query.columns.contains { $0.expression.hasAggregate }
        switch try QueryPlanner.plan(firstWhere, testsDeletion: query.testsDeletion, in: core, evaluator: evaluator,
                                     orderBy: ordered ? query.orderBy : nil) {
        case .scan:
            lines = ["full scan of the documents"]
        case .index(let index, let ranges):
            var line = "index \"\(index.name)\" on \(index.definition), "
                + ranges.map(\.description).joined(separator: " or ") + " (inclusive), each candidate checked against WHERE"
            let inOrder = ordered ? QueryPlanner.servesOrder(index, ranges, query.orderBy) : nil
            if let backwards = inOrder {
                line += ", read in \(backwards ? "reverse " : "")index order for ORDER BY, stopping after OFFSET + LIMIT rows"
            } else if IndexCoverage(query, index: index, evaluator: evaluator) != nil {
                line += "; the entries' keys answer the query (a document is read only where a key does not tell a value)"
            }
            lines = [line]
        }
        for join in query.joins {
            lines.append(JoinProbe(join, joinedAliases: Set(query.joins.map(\.alias)), in: core).description)
        }
        return lines.joined(separator: "; then ")
    }

    /// WHERE's terms that read only the first source (applied while reading it) and the rest
    /// (applied after the joins). Without joins the whole WHERE is the first kind.
    static func splitWhere(_ query: CompiledQuery) -> (first: CompiledExpression?, later: CompiledExpression?) {
        guard let whereClause = query.whereClause else { return (nil, nil) }
        let joined = Set(query.joins.map(\.alias))
        guard !joined.isEmpty else { return (whereClause, nil) }
        let terms = whereClause.conjuncts
        return (.and(terms.filter { !$0.reads(anyOf: joined) }), .and(terms.filter { $0.reads(anyOf: joined) }))
    }

    /// Runs each `MATCH()`'s search, for the evaluator's `MATCH()`, `RANK()` and
    /// `MATCH_OFFSETS()`. - Returns: each searched index's matching document IDs, in byte order.
    private static func searchFullText(_ query: CompiledQuery, in core: DatabaseCore,
                                       evaluator: inout QueryEvaluator) throws -> [String: [String]] {
        var candidates: [String: [String]] = [:]
        for (name, text) in query.whereClause?.fullTextSearches ?? [] {
            guard evaluator.fullText[name] == nil else {
                throw QueryError("a query can search the full-text index \"\(name)\" once", at: "WHERE")
            }
            guard let index = FullTextIndex.named(name, in: core) else {
                throw QueryError("there is no full-text index named \"\(name)\"; create it with createIndex", at: "WHERE",
                                 kind: .missingIndex)
            }
            do {
                let hits = try index.search(text, in: core, offsets: query.usesMatchOffsets, byRank: false)
                evaluator.fullText[name] = Dictionary(hits.map { ($0.documentID, $0.rank) }, uniquingKeysWith: max)
                candidates[name] = hits.map(\.documentID)
                if query.usesMatchOffsets {
                    evaluator.fullTextOffsets[name] = QueryValue.matchOffsets(of: hits, properties: index.definition.properties)
                }
            } catch where error is TextAnalysisError {
                throw QueryError("full-text search \"\(text)\": \(error)", at: "WHERE")
            }
        }
        return candidates
    }

    // MARK: Output

    /// Grouping, ordering, DISTINCT, OFFSET and LIMIT over the rows that passed WHERE.
    private static func output(_ rows: [QueryRow], of query: CompiledQuery, evaluator: QueryEvaluator) throws -> [[QueryValue]] {
        // (values of the columns, values of the sort keys) per output row.
        var output: [(columns: [QueryValue], keys: [QueryValue])] = []
        // Whether `output` is in ORDER BY's order already (the top-N below keeps it so).
        var inOrder = query.orderBy.isEmpty
        let grouped = !query.groupBy.isEmpty || query.columns.contains { $0.expression.hasAggregate }
        if grouped {
            // Each group's position by its key, its key and its rows, in order of first appearance.
            var positions: [[QueryValue]: Int] = [:]
            var order: [[QueryValue]] = []
            var groups: [[QueryRow]] = []
            // Rows in ID order often come in runs of one group (IDs that start with their kind):
            // a row with the last row's key joins its group without hashing the key (hashing and
            // finding were a fifth of a five-group GROUP BY over 5,050 documents).
            var lastPosition = -1
            for row in rows {
                let key = try row.groupKey ?? query.groupBy.map { try evaluator.evaluate($0, row) }
                if lastPosition >= 0, key == order[lastPosition] {
                    groups[lastPosition].append(row)
                } else if let position = positions[key] {
                    groups[position].append(row)
                    lastPosition = position
                } else {
                    lastPosition = order.count
                    positions[key] = order.count
                    order.append(key)
                    groups.append([row])
                }
            }
            if query.groupBy.isEmpty, order.isEmpty { order = [[]]; groups = [[]] }
            // Rows that kept their GROUP BY values instead of bodies: the expressions read them
            // from the key (the same values the group's first row would give).
            let keyed = groupsByKeysAlone(query)
            for (key, members) in zip(order, groups) {
                var scoped = evaluator
                scoped.group = members
                let representative = members.first ?? .none
                func value(_ expression: CompiledExpression) throws -> QueryValue {
                    try scoped.evaluate(keyed ? groupValued(expression, query.groupBy, key) : expression, representative)
                }
                if let having = query.having, !(try value(having).isTruthy) { continue }
                output.append((try query.columns.map { try value($0.expression) }, try query.orderBy.map { try value($0.expression) }))
            }
        } else if !query.orderBy.isEmpty, !query.distinct, let wanted = try topCount(query, evaluator) {
            // ORDER BY with LIMIT: keep only the first OFFSET + LIMIT rows in order (ties in
            // arrival order, as the stable sort below keeps them), and compute their columns only.
            // The kept rows' sort keys and positions in `rows`, in order (moving whole rows in
            // and out of a list of pairs was a third of a ten-row query).
            var keptKeys: [[QueryValue]] = [], kept: [Int] = []
            keptKeys.reserveCapacity(wanted + 1)
            kept.reserveCapacity(wanted + 1)
            for position in rows.indices {
                let keys = try query.orderBy.map { try evaluator.evaluate($0.expression, rows[position]) }
                if kept.count == wanted, let last = keptKeys.last, !precedes(keys, last, query) { continue }
                var low = 0, high = kept.count
                while low < high {
                    let middle = (low + high) / 2
                    if precedes(keys, keptKeys[middle], query) { high = middle } else { low = middle + 1 }
                }
                keptKeys.insert(keys, at: low)
                kept.insert(position, at: low)
                if kept.count > wanted {
                    keptKeys.removeLast()
                    kept.removeLast()
                }
            }
            for (keys, position) in zip(keptKeys, kept) {
                output.append((try query.columns.map { try evaluator.evaluate($0.expression, rows[position]) }, keys))
            }
            inOrder = true
        } else if query.orderBy.isEmpty {
            // Columns only, straight into the result: the (columns, keys) pairs and their copies
            // were most of the output of a query that returns its rows as they were read.
            var result: [[QueryValue]] = []
            result.reserveCapacity(rows.count)
            for row in rows { result.append(try query.columns.map { try evaluator.evaluate($0.expression, row) }) }
            return try distinctOffsetAndLimit(result, of: query, evaluator: evaluator)
        } else {
            output.reserveCapacity(rows.count)
            for row in rows {
                output.append((try query.columns.map { try evaluator.evaluate($0.expression, row) },
                               try query.orderBy.map { try evaluator.evaluate($0.expression, row) }))
            }
        }
        if !inOrder {
            let descending = query.orderBy.map(\.descending)
            output = output.enumerated().sorted { a, b in
                for (index, isDescending) in descending.enumerated() {
                    let order = QueryValue.compare(a.element.keys[index], b.element.keys[index])
                    if order != 0 { return isDescending ? order > 0 : order < 0 }
                }
                return a.offset < b.offset
            }.map(\.element)
        }
        return try distinctOffsetAndLimit(output.map(\.columns), of: query, evaluator: evaluator)
    }

    /// The rows in order after DISTINCT, OFFSET and LIMIT.
    private static func distinctOffsetAndLimit(_ rows: [[QueryValue]], of query: CompiledQuery,
                                               evaluator: QueryEvaluator) throws -> [[QueryValue]] {
        var result = rows
        if query.distinct {
            var seen = Set<[QueryValue]>()
            result = result.filter { seen.insert($0).inserted }
        }
        let (offset, limit) = try offsetAndLimit(query, evaluator)
        if offset == 0, (limit ?? Int.max) >= result.count { return result }
        return Array(result.dropFirst(offset).prefix(limit ?? Int.max))
    }

    /// OFFSET + LIMIT when the query has a LIMIT small enough to keep that many rows aside.
    static func topCount(_ query: CompiledQuery, _ evaluator: QueryEvaluator) throws -> Int? {
        let (offset, limit) = try offsetAndLimit(query, evaluator)
        guard let limit else { return nil }
        let wanted = limit.addingReportingOverflow(offset)
        return wanted.overflow || wanted.partialValue > 10_000 ? nil : wanted.partialValue
    }

    /// OFFSET (0 when absent) and LIMIT (nil when absent), each at least 0. LIMIT is evaluated
    /// first, so a query with both wrong reports LIMIT.
    private static func offsetAndLimit(_ query: CompiledQuery, _ evaluator: QueryEvaluator) throws -> (offset: Int, limit: Int?) {
        let limit = try query.limit.map { max(0, try integer(evaluator.evaluate($0, .none), "LIMIT")) }
        let offset = max(0, try query.offset.map { try integer(evaluator.evaluate($0, .none), "OFFSET") } ?? 0)
        return (offset, limit)
    }

    /// Whether sort keys `a` come strictly before `b` under the query's ORDER BY.
    private static func precedes(_ a: [QueryValue], _ b: [QueryValue], _ query: CompiledQuery) -> Bool {
        for (index, item) in query.orderBy.enumerated() {
            let order = QueryValue.compare(a[index], b[index])
            if order != 0 { return item.descending ? order > 0 : order < 0 }
        }
        return false
    }

    private static func integer(_ value: QueryValue, _ clause: String) throws -> Int {
        guard let number = value.number, number.isFinite else {
            throw QueryError("\(clause) must be a number", at: clause)
        }
        return Int(clamping: Int64(number.rounded(.towardZero)))
    }
}
