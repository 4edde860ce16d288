import Fleece
import LiteDatabase
import LiteStorage

extension QueryExecutor {
    /// The first source's rows that pass `condition`, in document-ID order: the documents a
    /// full-text search found when a `MATCH()` is one of its ANDed terms, else through a value
    /// index when the planner finds one, else a scan.
    ///
    /// - Parameter fullTextCandidates: each searched full-text index's hits, IDs in byte order.
    static func readFirstSource(_ query: CompiledQuery, where condition: CompiledExpression?, in core: DatabaseCore,
                                evaluator: QueryEvaluator, fullTextCandidates: [String: [String]] = [:]) throws -> [QueryRow] {
        // Past WHERE, a query whose columns, grouping and ordering read no property (`._id`
        // and other metadata only) needs no copy of a passing row's body.
        // A grouped query whose columns, HAVING and ordering read no property but its GROUP BY
        // expressions keeps each passing row's GROUP BY values instead of its body.
        let keyedGroups = groupsByKeysAlone(query)
        let keepsBodies = !query.joins.isEmpty
            || (keyedGroups ? [] : query.columns.map(\.expression) + query.groupBy + query.orderBy.map(\.expression)
                + [query.having].compactMap { $0 }).contains { $0.readsProperties }
        let reader = try PassingRowReader(condition: condition, core: core, evaluator: evaluator,
                                          readsRevisionIDs: query.readsRevisionID, keepsBodies: keepsBodies,
                                          groupBy: keyedGroups ? query.groupBy : nil,
                                          extracting: keepsBodies ? extractablePaths(query) : nil)
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
                return QueryRunCache.Planned(topN: topN, plan: plan, backwards: nil, coverage: nil)
            }
            let backwards = topN == nil ? nil : QueryPlanner.servesOrder(index, ranges, query.orderBy)
            return QueryRunCache.Planned(topN: topN, plan: plan, backwards: backwards,
                                         coverage: backwards == nil ? IndexCoverage(query, index: index, evaluator: evaluator) : nil)
        }
        if let wanted = planned.topN, case .index(let index, let ranges) = planned.plan, let backwards = planned.backwards {
            // The index gives ORDER BY's order up to values its keys do not tell apart (MISSING
            // and NULL, numbers equal as doubles): read until OFFSET + LIMIT rows have passed and
            // the next row's sort keys encode differently from the last kept one's, then sort.
            // Within one encoding, entries come in document-ID order when the ORDER BY (after
            // the fixed values) names every expression of the index; reading forwards, ties then
            // arrive in their output order, so a run of rows with the same keys that nothing
            // later in it can precede ends the read once LIMIT is reached (routes with no city
            // are thousands of equal keys).
            let exhaustive = backwards || ranges[0].fixedValues + query.orderBy.count != index.expressions.count
            var boundary: [UInt8]?
            var group: (encoded: [UInt8], keys: [QueryValue], uniform: Bool)?
            // Through the documents: the read stops after LIMIT rows, so the entries' keys
            // would save little, and each entry they cannot answer (a run of MISSING sort keys
            // comes first) would cost a lookup of its own instead of a step of the join.
            try visitPassingRows(index, ranges[0], descending: backwards, coverage: nil,
                                 reader: reader) { row in
                let keys = try query.orderBy.map { try evaluator.evaluate($0.expression, row) }
                let encoded = IndexKey.encode(keys)
                if let boundary, encoded != boundary { return false }
                if let current = group, current.encoded == encoded {
                    if !Self.sameKeys(current.keys, keys) { group?.uniform = false }
                } else {
                    group = (encoded, keys, true)
                }
                rows.append(row)
                if boundary == nil, rows.count >= wanted { boundary = encoded }
                if boundary != nil, !exhaustive, group?.uniform == true, Self.nothingPrecedes(keys, query.orderBy) {
                    return false
                }
                return true
            }
            // In document-ID order, as after a scan; the output's stable sort then orders them.
            rows.sortByDocumentID()
            return rows
        }
        switch planned.plan {
        case .scan:
            // Rows come in the engine's order and are put in document-ID order below, as a
            // key-ordered scan would give them.
            var options = RecordEnumerationOptions(includeDeleted: query.testsDeletion)
            options.readsMetadata = query.readsSequenceOrExpiration
            if reader.filter.isEmpty || query.testsDeletion {
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
        case .index(let index, let ranges):
            // Candidates from the index, each checked against the whole condition, then put in
            // document-ID order as a scan would give them. One value of every expression of the
            // index lists its documents in ID order already, each once; otherwise ranges can
            // repeat a document (`IN [1, 1.0]`), so equal IDs are dropped after sorting.
            for range in ranges {
                try visitPassingRows(index, range, descending: false, anyOrder: true, coverage: planned.coverage,
                                     reader: reader) { row in
                    rows.append(row)
                    return true
                }
            }
            if !(ranges.count == 1 && ranges[0].fixedValues == index.expressions.count) {
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

    /// Calls `body` with each row of `range` of `index` that passes the reader's condition, in
    /// index order (reversed when `descending`; any order with `anyOrder`), until it returns false: from the entries alone
    /// when `coverage` allows (an entry whose key cannot answer is read from its document),
    /// else from each entry's document.
    private static func visitPassingRows(_ index: ValueIndex, _ range: IndexRange, descending: Bool, anyOrder: Bool = false,
                                         coverage: IndexCoverage?, reader: PassingRowReader,
                                         _ body: (QueryRow) throws -> Bool) throws {
        guard let coverage else {
            let visit = { (view: RecordView) throws -> Bool in
                guard !view.flags.contains(.deleted), let row = try reader.row(view) else { return true }
                return try body(row)
            }
            if anyOrder {
                try index.visitRecordsInAnyOrder(in: range, in: reader.core, visit)
            } else {
                try index.visitRecords(in: range, descending: descending, in: reader.core, visit)
            }
            return
        }
        var values = coverage.emptyValues
        try index.visitEntries(in: range, descending: descending, in: reader.core) { key, id in
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

/// Turns lent records into rows for those that pass a condition: the body is read in place
/// (no copy, no tree decoding), a ``ScanFilter`` rejects most failures without converting any
/// value, the condition decides, and only a passing row gets its own copy of the body.
private struct PassingRowReader {
    let condition: CompiledExpression?
    let core: DatabaseCore
    let evaluator: QueryEvaluator
    let readsRevisionIDs: Bool
    /// Whether a passing row keeps a copy of its body (false: the query reads no property after WHERE).
    let keepsBodies: Bool
    /// The GROUP BY expressions to evaluate on each passing row's lent body, when rows keep their
    /// values (``QueryRow/groupKey``) instead of bodies.
    let groupBy: [CompiledExpression]?
    /// Each GROUP BY expression's path, for those read straight from the lent body.
    let groupPaths: [LentPropertyPath?]
    /// The paths whose values a passing row keeps instead of a copy of its body (a row whose
    /// value at one of them is an array, an object or data keeps its body).
    let kept: KeptPropertyValues?
    let keys: FleeceKeyTable
    let filter: ScanFilter
    let empty: FleeceDocument
    /// One borrowing document, pointed at each record's body in turn.
    let borrowed: FleeceDocument
    /// The root of `empty`'s bytes, for the filter's test of a body-less record.
    let emptyRoot: FleeceLentValue

    init(condition: CompiledExpression?, core: DatabaseCore, evaluator: QueryEvaluator, readsRevisionIDs: Bool,
         keepsBodies: Bool = true, groupBy: [CompiledExpression]? = nil,
         extracting paths: [[FleecePath.Component]]? = nil) throws {
        self.condition = condition
        self.groupBy = groupBy
        self.readsRevisionIDs = readsRevisionIDs
        self.keepsBodies = keepsBodies
        self.core = core
        self.evaluator = evaluator
        keys = FleeceKeyTable(core.sharedKeys)
        filter = ScanFilter(condition, keys: keys)
        let keyTable = keys
        groupPaths = (groupBy ?? []).map { LentPropertyPath($0, keys: keyTable) }
        kept = KeptPropertyValues(paths, keys: keyTable)
        let empty = try FleeceDocument(bytes: StoredDocument.emptyDictionary, trusted: true)
        self.empty = empty
        // Lent `empty`'s bytes (allocated once, freed with it, and it lives as long as this
        // reader) until the first record is read.
        let table = keys
        borrowed = try empty.withUnsafeBytes { try FleeceDocument(borrowing: $0, keys: table) }
        emptyRoot = try empty.withUnsafeBytes { try FleeceLentValue(rootOf: $0) }
    }

    /// The root of a current revision's lent bytes (an empty dictionary's for none).
    private func lentRoot(_ bytes: UnsafeRawBufferPointer?) throws -> FleeceLentValue {
        guard let bytes, bytes.count > 0 else { return emptyRoot }
        return try FleeceLentValue(rootOf: bytes)
    }

    /// The filter's verdict on a live record's body; undecided when the body cannot be read
    /// (``row(_:verdict:)`` then meets the problem and reports it).
    func verdict(recordBody: UnsafeRawBufferPointer) -> ScanFilter.Verdict {
        // Undecided on an unreadable body: `row` then reads the same bytes and throws their error.
        let bytes = try? StoredDocument.currentBody(inRecordBody: recordBody)   // allowed: `row` reports it
        guard let bytes else { return .undecided }
        guard bytes.count > 0 else { return filter.verdict(emptyRoot) }
        guard let root = try? FleeceLentValue(rootOf: bytes) else { return .undecided }   // allowed: `row` reports it
        return filter.verdict(root)
    }

    /// The row of `view` when it passes the condition, or nil. `known`: the filter's verdict on
    /// this record, when it was already found (``verdict(recordBody:)``).
    func row(_ view: RecordView, verdict known: ScanFilter.Verdict? = nil) throws -> QueryRow? {
        let isDeleted = view.flags.contains(.deleted)
        let bytes = isDeleted ? nil : try StoredDocument.currentBody(inRecordBody: view.body)
        var passes = false
        // The lent bytes' root, once read (before any document object is pointed at them).
        var root: FleeceLentValue?
        if !filter.isEmpty {
            let verdict: ScanFilter.Verdict
            if let known {
                verdict = known
            } else {
                let found = try lentRoot(bytes)
                root = found
                verdict = filter.verdict(found)
            }
            switch verdict {
            case .fails: return nil
            case .passes: passes = true
            case .undecided: break
            }
        }
        let body: FleeceDocument
        if let bytes, bytes.count > 0 {
            try borrowed.rebind(borrowing: bytes)
            body = borrowed
        } else {
            body = empty
        }
        let id = view.keyString
        let revisionID = readsRevisionIDs ? try StoredDocument.currentRevisionID(inRecordBody: view.body) : nil
        // The row the evaluator reads the lent body through, made only when something evaluates.
        func candidate() -> QueryRow {
            QueryRow(id: id, sequence: view.sequence, isDeleted: isDeleted, expiration: view.expiration, body: body,
                     revisionID: revisionID)
        }
        if !passes, let condition, !(try evaluator.evaluate(condition, candidate()).isTruthy) { return nil }
        guard keepsBodies else {
            var groupKey: [QueryValue]?
            if let groupBy {
                let found = try root ?? lentRoot(bytes)
                var key: [QueryValue] = []
                key.reserveCapacity(groupBy.count)
                for (expression, path) in zip(groupBy, groupPaths) {
                    key.append(try path?.value(in: found) ?? evaluator.evaluate(expression, candidate()))
                }
                groupKey = key
            }
            return QueryRow(id: id, sequence: view.sequence, isDeleted: isDeleted, expiration: view.expiration,
                            revisionID: revisionID, indexValues: nil, groupKey: groupKey)
        }
        if let kept, let values = kept.values(in: try root ?? lentRoot(bytes)) {
            return QueryRow(id: id, sequence: view.sequence, isDeleted: isDeleted, expiration: view.expiration,
                            revisionID: revisionID, indexValues: values)
        }
        let owned = try bytes.flatMap { $0.count > 0 ? $0 : nil }.map {
            try FleeceDocument(copying: $0, keys: keys)
        } ?? empty
        return QueryRow(id: id, sequence: view.sequence, isDeleted: isDeleted, expiration: view.expiration, body: owned,
                        revisionID: revisionID)
    }
}
