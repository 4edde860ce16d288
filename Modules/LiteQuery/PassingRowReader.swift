import Fleece
import LiteDatabase
import LiteStorage

/// Turns lent records into rows for those that pass a condition: the body is read in place
/// (no copy, no tree decoding), a ``ScanFilter`` rejects most failures without converting any
/// value, the condition decides, and only a passing row gets its own copy of the body. A class:
/// the query's visits capture it, and copies of a struct of a dozen references were a run's
/// cost of its own.
final class PassingRowReader {
    let condition: CompiledExpression?
    let core: DatabaseCore
    let evaluator: QueryEvaluator
    let readsRevisionIDs: Bool
    /// What depends only on the query and the shared keys.
    let parts: Parts
    let empty: FleeceDocument
    /// One borrowing document, pointed at each record's body in turn.
    let borrowed: FleeceDocument
    /// The root of `empty`'s bytes, for the filter's test of a body-less record.
    let emptyRoot: FleeceLentValue

    /// What a reader needs that depends only on the query and the shared keys, kept between
    /// runs (``QueryRunCache/readerParts(keys:_:)``): working them out was a tenth of a query
    /// that reads ten rows.
    struct Parts {
        let keys: FleeceKeyTable
        let filter: ScanFilter
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

        /// The parts for reading `query`'s first source with the terms `condition` of its WHERE.
        init(_ query: CompiledQuery, condition: CompiledExpression?, keys: FleeceKeyTable) {
            // Past WHERE, a query whose columns, grouping and ordering read no property (`._id`
            // and other metadata only) needs no copy of a passing row's body.
            // A grouped query whose columns, HAVING and ordering read no property but its GROUP BY
            // expressions keeps each passing row's GROUP BY values instead of its body.
            let keyedGroups = QueryExecutor.groupsByKeysAlone(query)
            keepsBodies = !query.joins.isEmpty
                || (keyedGroups ? [] : query.columns.map(\.expression) + query.groupBy + query.orderBy.map(\.expression)
                    + [query.having].compactMap { $0 }).contains { $0.readsProperties }
            groupBy = keyedGroups ? query.groupBy : nil
            self.keys = keys
            filter = ScanFilter(condition, keys: keys)
            groupPaths = (groupBy ?? []).map { LentPropertyPath($0, keys: keys) }
            kept = KeptPropertyValues(keepsBodies ? QueryExecutor.extractablePaths(query) : nil, keys: keys)
        }
    }

    init(_ parts: Parts, condition: CompiledExpression?, core: DatabaseCore, evaluator: QueryEvaluator,
         readsRevisionIDs: Bool) throws {
        self.condition = condition
        self.parts = parts
        self.readsRevisionIDs = readsRevisionIDs
        self.core = core
        self.evaluator = evaluator
        let empty = try FleeceDocument(bytes: StoredDocument.emptyDictionary, trusted: true)
        self.empty = empty
        // Lent `empty`'s bytes (allocated once, freed with it, and it lives as long as this
        // reader) until the first record is read.
        let table = parts.keys
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
        guard bytes.count > 0 else { return parts.filter.verdict(emptyRoot) }
        guard let root = try? FleeceLentValue(rootOf: bytes) else { return .undecided }   // allowed: `row` reports it
        return parts.filter.verdict(root)
    }

    /// The row of `view` when it passes the condition, or nil. `known`: the filter's verdict on
    /// this record, when it was already found (``verdict(recordBody:)``).
    func row(_ view: RecordView, verdict known: ScanFilter.Verdict? = nil) throws -> QueryRow? {
        let isDeleted = view.flags.contains(.deleted)
        let bytes = isDeleted ? nil : try StoredDocument.currentBody(inRecordBody: view.body)
        var passes = false
        // The lent bytes' root, once read (before any document object is pointed at them).
        var root: FleeceLentValue?
        if !parts.filter.isEmpty {
            let verdict: ScanFilter.Verdict
            if let known {
                verdict = known
            } else {
                let found = try lentRoot(bytes)
                root = found
                verdict = parts.filter.verdict(found)
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
        guard parts.keepsBodies else {
            var groupKey: [QueryValue]?
            if let groupBy = parts.groupBy {
                let found = try root ?? lentRoot(bytes)
                var key: [QueryValue] = []
                key.reserveCapacity(groupBy.count)
                for (expression, path) in zip(groupBy, parts.groupPaths) {
                    key.append(try path?.value(in: found) ?? evaluator.evaluate(expression, candidate()))
                }
                groupKey = key
            }
            return QueryRow(id: id, sequence: view.sequence, isDeleted: isDeleted, expiration: view.expiration,
                            revisionID: revisionID, indexValues: nil, groupKey: groupKey)
        }
        if let kept = parts.kept, let values = kept.values(in: try root ?? lentRoot(bytes)) {
            return QueryRow(id: id, sequence: view.sequence, isDeleted: isDeleted, expiration: view.expiration,
                            revisionID: revisionID, indexValues: values)
        }
        let owned = try bytes.flatMap { $0.count > 0 ? $0 : nil }.map {
            try FleeceDocument(copying: $0, keys: parts.keys)
        } ?? empty
        return QueryRow(id: id, sequence: view.sequence, isDeleted: isDeleted, expiration: view.expiration, body: owned,
                        revisionID: revisionID)
    }
}
