import Fleece
import LiteDatabase
import LiteStorage
import LiteText

/// Runs a compiled query over a database's documents: a full scan in one read snapshot (no
/// index use yet), WHERE, GROUP BY with aggregates and HAVING, DISTINCT, ORDER BY (N1QL
/// collation), OFFSET and LIMIT.
package enum QueryExecutor {
    /// The result rows, each one value per column.
    package static func run(_ query: CompiledQuery, in core: DatabaseCore,
                            parameters: [String: QueryValue]) throws -> [[QueryValue]] {
        if let unset = query.parameterNames.subtracting(parameters.keys).sorted().first {
            throw QueryError("parameter $\(unset) has no value; set it in the query's parameters")
        }
        var evaluator = QueryEvaluator(parameters: parameters)
        for (name, text) in query.whereClause?.fullTextSearches ?? [] {
            guard evaluator.fullText[name] == nil else {
                throw QueryError("a query can search the full-text index \"\(name)\" once", at: "WHERE")
            }
            guard let index = FullTextIndex.named(name, in: core) else {
                throw QueryError("there is no full-text index named \"\(name)\"; create it with createIndex", at: "WHERE")
            }
            do {
                let hits = try index.search(text, in: core, offsets: query.usesMatchOffsets)
                evaluator.fullText[name] = Dictionary(hits.map { ($0.documentID, $0.rank) }, uniquingKeysWith: max)
                if query.usesMatchOffsets {
                    evaluator.fullTextOffsets[name] = QueryValue.matchOffsets(of: hits, properties: index.definition.properties)
                }
            } catch let error as TextAnalysisError {
                throw QueryError("full-text search \"\(text)\": \(error)", at: "WHERE")
            }
        }
        var rows: [QueryRow] = []
        try core.checkOpen()
        let plan = try QueryPlanner.plan(query, in: core, evaluator: evaluator)
        try core.dataFile.withReadSnapshot {
            func consider(_ record: Record) throws {
                let document = try StoredDocument(record: record)
                let body = try document.body(sharedKeys: core.sharedKeys, trusted: true)
                let row = QueryRow(id: record.key, sequence: record.sequence, isDeleted: document.isDeleted,
                                   expiration: record.expiration, body: body)
                if let condition = query.whereClause, !(try evaluator.evaluate(condition, row).isTruthy) { return }
                rows.append(row)
            }
            switch plan {
            case .scan:
                let enumerator = try core.documents.enumerate(
                    options: RecordEnumerationOptions(includeDeleted: query.testsDeletion))
                defer { enumerator.close() }
                while let record = try enumerator.next() { try consider(record) }
            case .index(let index, let lower, let upper):
                // Candidates from the index, in document-ID order as a scan would give them; each
                // is checked against the whole WHERE.
                for id in Set(try index.documentIDs(from: lower, to: upper, in: core)).sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
                    guard let record = try core.documents.get(id), !record.flags.contains(.deleted) else { continue }
                    try consider(record)
                }
            }
        }

        // (values of the columns, values of the sort keys) per output row.
        var output: [(columns: [QueryValue], keys: [QueryValue])] = []
        let grouped = !query.groupBy.isEmpty || query.columns.contains { $0.expression.hasAggregate }
        if grouped {
            var groups: [[QueryValue]: [QueryRow]] = [:]
            var order: [[QueryValue]] = []
            for row in rows {
                let key = try query.groupBy.map { try evaluator.evaluate($0, row) }
                if groups[key] == nil { order.append(key) }
                groups[key, default: []].append(row)
            }
            if query.groupBy.isEmpty, order.isEmpty { order = [[]]; groups[[]] = [] }
            for key in order {
                let members = groups[key] ?? []
                var scoped = evaluator
                scoped.group = members
                let representative = members.first ?? QueryRow(id: "", sequence: 0, isDeleted: false, expiration: nil, body: nil)
                if let having = query.having, !(try scoped.evaluate(having, representative).isTruthy) { continue }
                output.append((try query.columns.map { try scoped.evaluate($0.expression, representative) },
                               try query.orderBy.map { try scoped.evaluate($0.expression, representative) }))
            }
        } else {
            for row in rows {
                output.append((try query.columns.map { try evaluator.evaluate($0.expression, row) },
                               try query.orderBy.map { try evaluator.evaluate($0.expression, row) }))
            }
        }
        if !query.orderBy.isEmpty {
            let descending = query.orderBy.map(\.descending)
            output = output.enumerated().sorted { a, b in
                for (index, isDescending) in descending.enumerated() {
                    let order = QueryValue.compare(a.element.keys[index], b.element.keys[index])
                    if order != 0 { return isDescending ? order > 0 : order < 0 }
                }
                return a.offset < b.offset
            }.map(\.element)
        }
        var result = output.map(\.columns)
        if query.distinct {
            var seen = Set<[QueryValue]>()
            result = result.filter { seen.insert($0).inserted }
        }
        let noRow = QueryRow(id: "", sequence: 0, isDeleted: false, expiration: nil, body: nil)
        let offset = try query.offset.map { try integer(evaluator.evaluate($0, noRow), "OFFSET") } ?? 0
        let limit = try query.limit.map { try integer(evaluator.evaluate($0, noRow), "LIMIT") } ?? Int.max
        return Array(result.dropFirst(max(0, offset)).prefix(max(0, limit)))
    }

    /// How `query` runs: a scan, or which index with which bounds.
    package static func explain(_ query: CompiledQuery, in core: DatabaseCore, parameters: [String: QueryValue]) throws -> String {
        let plan = try QueryPlanner.plan(query, in: core, evaluator: QueryEvaluator(parameters: parameters))
        switch plan {
        case .scan:
            return "full scan of the documents"
        case .index(let index, let lower, let upper):
            let bound = { (value: QueryValue?) in value.map { "\($0)" } ?? "open" }
            return "index \"\(index.name)\" on \(index.definition), from \(bound(lower)) to \(bound(upper)) (inclusive), "
                + "each candidate checked against WHERE"
        }
    }

    private static func integer(_ value: QueryValue, _ clause: String) throws -> Int {
        guard let number = value.number, number.isFinite else {
            throw QueryError("\(clause) must be a number", at: clause)
        }
        return Int(clamping: Int64(number.rounded(.towardZero)))
    }
}
