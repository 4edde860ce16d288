import Fleece
import LiteDatabase
import LiteStorage

extension QueryExecutor {
    /// The first source's rows that pass `condition`, in document-ID order: the documents a
    /// full-text search found when a `MATCH()` is one of its ANDed terms, else through a value
    /// index when the planner finds one, else a scan.
    ///
    /// - Parameters:
    ///   - fullTextCandidates: each searched full-text index's hits, IDs in byte order.
    ///   - inOutputOrder: set when the rows come in ORDER BY's order instead (ties in
    ///     document-ID order), read in index order for a top-N: all the output needs then is
    ///     OFFSET and LIMIT.
    static func readFirstSource(_ query: CompiledQuery, where condition: CompiledExpression?, in core: DatabaseCore,
                                evaluator: QueryEvaluator, fullTextCandidates: [String: [String]] = [:],
                                inOutputOrder: inout Bool) throws -> [QueryRow] {
        let parts = query.runCache.readerParts(keys: FleeceKeyTable(core.sharedKeys)) { keys in
            PassingRowReader.Parts(query, condition: condition, keys: keys)
        }
        let reader = try PassingRowReader(parts, condition: condition, core: core, evaluator: evaluator,
                                          readsRevisionIDs: query.readsRevisionID)
        var rows: [QueryRow] = []
        if let driver = QueryPlanner.fullTextDriver(condition), let ids = fullTextCandidates[driver.index] {
            // Only the index's hits can pass; each is read by ID and checked against the whole condition.
            for id in ids {
                try core.documents.visitRecord(id) { view in
                    if !view.flags.contains(.deleted) || query.testsDeletion, let row = try reader.row(view) { rows.append(row) }
                }
            }
            return rows
        }
        let planned = try query.runCache.planned(generation: core.indexerGeneration, parameters: evaluator.parameters) {
            let topN = try orderedLimit(query, evaluator)
            let plan = try QueryPlanner.plan(condition, testsDeletion: query.testsDeletion, in: core, evaluator: evaluator,
                                             orderBy: topN == nil ? nil : query.orderBy)
            guard case .index(let index, let ranges) = plan else {
                return QueryRunCache.Planned(topN: topN, plan: plan, backwards: nil, coverage: nil, entryKeys: [],
                                             fixesEveryExpression: false)
            }
            let backwards = topN == nil ? nil : QueryPlanner.servesOrder(index, ranges, query.orderBy)
            return QueryRunCache.Planned(topN: topN, plan: plan, backwards: backwards,
                                         coverage: backwards == nil ? IndexCoverage(query, index: index, evaluator: evaluator) : nil,
                                         entryKeys: ranges.map(ValueIndex.entryKeys),
                                         fixesEveryExpression: ranges.count == 1 && ranges[0].fixedValues == index.expressions.count,
                                         exhaustive: backwards.map {
                                             $0 || ranges[0].fixedValues + query.orderBy.count != index.expressions.count
                                         } ?? true)
        }
        if let wanted = planned.topN, case .index(let index, _) = planned.plan, let backwards = planned.backwards {
            // The index gives ORDER BY's order up to values its keys do not tell apart (MISSING
            // and NULL, numbers equal as doubles): read until OFFSET + LIMIT rows have passed and
            // the next row's sort keys encode differently from the last kept one's, then sort.
            // Within one encoding, entries come in document-ID order when the ORDER BY (after
            // the fixed values) names every expression of the index; reading forwards, ties then
            // arrive in their output order, so a run of rows with the same keys that nothing
            // later in it can precede ends the read once LIMIT is reached (routes with no city
            // are thousands of equal keys).
            let exhaustive = planned.exhaustive
            // The current group: rows whose sort keys encode alike (`encoded`), with the first
            // one's keys and whether all of them tie exactly.
            var encoded: [UInt8] = [], groupEncoded: [UInt8] = []
            var groupKeys: [QueryValue] = []
            var groupUniform = true
            var group = -1
            // Whether OFFSET + LIMIT rows have passed: the read ends with the current group.
            var full = false
            // Each row's sort keys and group, for the ordering below, and whether that order is
            // the read's: each group a tie read forwards, in document-ID order.
            var sortKeys: [[QueryValue]] = []
            var groups: [Int] = []
            var readInOrder = !exhaustive
            rows.reserveCapacity(wanted + 1)
            sortKeys.reserveCapacity(wanted + 1)
            groups.reserveCapacity(wanted + 1)
            // Through the documents: the read stops after LIMIT rows, so the entries' keys
            // would save little, and each entry they cannot answer (a run of MISSING sort keys
            // comes first) would cost a lookup of its own instead of a step of the join.
            try visitPassingRows(index, planned.entryKeys[0], descending: backwards, coverage: nil,
                                 reader: reader) { row in
                let keys = try query.orderBy.map { try evaluator.evaluate($0.expression, row) }
                encoded.removeAll(keepingCapacity: true)
                for key in keys { IndexKey.append(key, to: &encoded) }
                if group >= 0, encoded == groupEncoded {
                    if groupUniform, !Self.sameKeys(groupKeys, keys) {
                        groupUniform = false
                        readInOrder = false
                    }
                } else {
                    if full { return false }
                    swap(&encoded, &groupEncoded)   // each buffer is reused
                    groupKeys = keys
                    groupUniform = true
                    group += 1
                }
                rows.append(row)
                sortKeys.append(keys)
                groups.append(group)
                if rows.count >= wanted { full = true }
                if full, !exhaustive, groupUniform, Self.nothingPrecedes(keys, query.orderBy) {
                    return false
                }
                return true
            }
            // In the order of the output's stable sort after a scan: by the sort keys, ties in
            // document-ID order. The groups came in that order (keys' encodings order as the
            // values do); only within a group can the read's order differ (keys that encode
            // alike but differ, and ties read backwards).
            if !readInOrder { rows.sortNearlyOrdered(groups: groups, keys: sortKeys, orderBy: query.orderBy) }
            inOutputOrder = true
            return rows
        }
        switch planned.plan {
        case .scan:
            // Rows come in the engine's order and are put in document-ID order below, as a
            // key-ordered scan would give them.
            var options = RecordEnumerationOptions(includeDeleted: query.testsDeletion)
            options.readsMetadata = query.readsSequenceOrExpiration
            if reader.parts.filter.isEmpty || query.testsDeletion {
                try core.documents.visitRecords(options: options) { view in
                    if let row = try reader.row(view) { rows.append(row) }
                    return true
                }
            } else {
                // The filter runs inside the engine's scan (SQLite skips a rejected record
                // without returning it); its verdict on the record just accepted is the visit's.
                var verdict = ScanFilter.Verdict.undecided
                try core.documents.visitRecords(options: options, accepting: { body in
                    verdict = reader.verdict(recordBody: body)
                    return verdict != .fails
                }) { view in
                    if let row = try reader.row(view, verdict: verdict) { rows.append(row) }
                    return true
                }
            }
            rows.sortByDocumentID()
        case .index(let index, _):
            // Candidates from the index, each checked against the whole condition, then put in
            // document-ID order as a scan would give them. One value of every expression of the
            // index lists its documents in ID order already, each once; otherwise ranges can
            // repeat a document (`IN [1, 1.0]`), so equal IDs are dropped after sorting.
            for keys in planned.entryKeys {
                try visitPassingRows(index, keys, descending: false, anyOrder: true, coverage: planned.coverage,
                                     reader: reader) { row in
                    rows.append(row)
                    return true
                }
            }
            if !planned.fixesEveryExpression {
                rows.sortByDocumentID()
                var unique: [QueryRow] = []
                unique.reserveCapacity(rows.count)
                // By bytes: Swift's `!=` would call two IDs spelled "é" and "e" + U+0301 one.
                for row in rows where unique.last.map({ $0.id.byteOrder(row.id) != 0 }) ?? true { unique.append(row) }
                rows = unique
            }
        }
        return rows
    }

    /// Calls `body` with each row of `index` whose entry key is in `keys` that passes the reader's condition, in
    /// index order (reversed when `descending`; any order with `anyOrder`), until it returns false: from the entries alone
    /// when `coverage` allows (an entry whose key cannot answer is read from its document),
    /// else from each entry's document.
    private static func visitPassingRows(_ index: ValueIndex, _ keys: ByteKeyRange, descending: Bool, anyOrder: Bool = false,
                                         coverage: IndexCoverage?, reader: PassingRowReader,
                                         _ body: (QueryRow) throws -> Bool) throws {
        guard let coverage else {
            let visit = { (view: RecordView) throws -> Bool in
                guard !view.flags.contains(.deleted), let row = try reader.row(view) else { return true }
                return try body(row)
            }
            if anyOrder {
                try index.visitRecordsInAnyOrder(inKeys: keys, in: reader.core, visit)
            } else {
                try index.visitRecords(inKeys: keys, descending: descending, in: reader.core, visit)
            }
            return
        }
        var values = coverage.emptyValues
        try index.visitEntries(inKeys: keys, descending: descending, in: reader.core) { key, id in
            // Most entries are decided on their key's bytes; a passing one is decoded only
            // when its row keeps the values, and its terms are not tested again.
            let encoded = coverage.encodedVerdict(key)
            if encoded == .fails { return true }
            if encoded == .passes, !coverage.rowsKeepValues {
                return try body(QueryRow(id: id, sequence: 0, isDeleted: false, expiration: nil, body: nil))
            }
            if coverage.decode(key, into: &values) {
                switch encoded ?? coverage.verdict(values) {
                case .fails: return true
                case .passes: return try body(coverage.row(id: id, values: values, forWhere: false))
                case .undecided:
                    let row = coverage.row(id: id, values: values, forWhere: true)
                    if let condition = reader.condition, !(try reader.evaluator.evaluate(condition, row).isTruthy) { return true }
                    return try body(row)
                }
            }
            var goesOn = true
            try reader.core.documents.visitRecord(id) { view in
                if !view.flags.contains(.deleted), let row = try reader.row(view) { goesOn = try body(row) }
            }
            return goesOn
        }
    }

    /// Whether two rows' sort keys tie exactly (MISSING and NULL encode alike but do not).
    private static func sameKeys(_ a: [QueryValue], _ b: [QueryValue]) -> Bool {
        zip(a, b).allSatisfy { QueryValue.compare($0, $1) == 0 }   // MISSING and NULL differ in type rank
    }

    /// Whether no value that encodes like `keys` can sort before them: each is a value its
    /// encoding tells apart from every other (not an integer beyond 2^53, which shares a double),
    /// or MISSING in ascending order, or NULL in descending order (the first of the two there).
    private static func nothingPrecedes(_ keys: [QueryValue], _ orderBy: [(expression: CompiledExpression, descending: Bool)]) -> Bool {
        zip(keys, orderBy).allSatisfy { key, item in
            switch key {
            case .missing: !item.descending
            case .null: item.descending
            case .int(let number): number.magnitude <= 1 << 53
            case .array, .dictionary: false   // their items could be any of the above
            default: true
            }
        }
    }

    /// OFFSET + LIMIT for a query whose rows a top-N can take straight from an ordered read: an
    /// ORDER BY and a LIMIT, one source, no grouping, aggregates or DISTINCT.
    private static func orderedLimit(_ query: CompiledQuery, _ evaluator: QueryEvaluator) throws -> Int? {
        guard !query.orderBy.isEmpty, query.joins.isEmpty, query.groupBy.isEmpty, !query.distinct,
              !query.columns.contains(where: { $0.expression.hasAggregate }) else { return nil }
        return try topCount(query, evaluator)
    }

    /// Every property path of the first source that anything after the first source's WHERE
    /// reads (columns, grouping, ordering, HAVING, the joins and the rest of WHERE), when there
    /// are a few and none is the whole document: a passing row can then keep those values
    /// instead of a copy of its body.
    static func extractablePaths(_ query: CompiledQuery) -> [[FleecePath.Component]]? {
        var paths: [[FleecePath.Component]] = []
        for expression in readAfterFirstWhere(query) where !expression.collectPaths(ofSource: query.sourceAlias, into: &paths) {
            return nil
        }
        return paths.isEmpty || paths.count > 8 ? nil : paths
    }

    /// The same for the joined source `alias`: every path of it the joins, the rest of WHERE and
    /// everything after read, when there are a few and none is the whole document (nor its
    /// revision ID, which a kept row does not hold).
    static func extractablePaths(_ query: CompiledQuery, joined alias: String) -> [[FleecePath.Component]]? {
        guard !query.readsRevisionID else { return nil }
        var paths: [[FleecePath.Component]] = []
        for expression in readAfterFirstWhere(query) where !expression.collectPaths(ofJoined: alias, into: &paths) { return nil }
        return paths.isEmpty || paths.count > 8 ? nil : paths
    }

    /// What is evaluated after the first source's WHERE: the columns, grouping, ordering,
    /// HAVING, the rest of WHERE and each join's ON and UNNEST.
    private static func readAfterFirstWhere(_ query: CompiledQuery) -> [CompiledExpression] {
        var expressions = query.columns.map(\.expression) + query.groupBy + query.orderBy.map(\.expression)
        expressions += [query.having, splitWhere(query).later].compactMap { $0 }
        for join in query.joins {
            if let on = join.on { expressions.append(on) }
            if case .unnest(let array) = join.kind { expressions.append(array) }
        }
        return expressions
    }

    /// Whether a grouped query reads nothing of a row after WHERE but its GROUP BY values:
    /// one source, a GROUP BY, and columns, HAVING and ORDER BY that read no property once
    /// each GROUP BY expression outside an aggregate stands for its group's value.
    static func groupsByKeysAlone(_ query: CompiledQuery) -> Bool {
        guard !query.groupBy.isEmpty, query.joins.isEmpty else { return false }
        let placeholders = [QueryValue](repeating: .null, count: query.groupBy.count)
        return !(query.columns.map(\.expression) + query.orderBy.map(\.expression) + [query.having].compactMap { $0 })
            .contains { groupValued($0, query.groupBy, placeholders).readsProperties }
    }

    /// `expression` with each GROUP BY expression outside an aggregate (and outside COLLATE,
    /// which would fold the value differently) replaced by its group's value in `key`: what
    /// evaluating it on the group's first row gives, as that row's GROUP BY values are `key`.
    static func groupValued(_ expression: CompiledExpression, _ groupBy: [CompiledExpression],
                            _ key: [QueryValue]) -> CompiledExpression {
        if let index = groupBy.firstIndex(of: expression) { return .literal(key[index]) }
        switch expression {
        case .call(let name, let operands):
            if QueryFunctions.aggregates.contains(name) { return expression }
            return .call(name, operands.map { groupValued($0, groupBy, key) })
        case .quantified(let kind, let variable, let array, let condition):
            return .quantified(kind, variable: variable, array: groupValued(array, groupBy, key),
                               condition: groupValued(condition, groupBy, key))
        default:
            return expression
        }
    }

    /// The live document `id` as a row, or nil.
    static func document(_ id: String, in core: DatabaseCore) throws -> QueryRow? {
        guard let record = try core.documents.get(id), !record.flags.contains(.deleted) else { return nil }
        let document = try StoredDocument(record: record)
        return QueryRow(id: record.key, sequence: record.sequence, isDeleted: false, expiration: record.expiration,
                        body: try document.body(sharedKeys: core.sharedKeys, trusted: true), revisionID: document.revisionID?.string)
    }
}
