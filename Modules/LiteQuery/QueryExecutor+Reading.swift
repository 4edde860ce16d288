import Fleece
import LiteDatabase
import LiteStorage

extension QueryExecutor {
    /// The first source's rows that pass `condition`, in document-ID order: through a value
    /// index when the planner finds one, else a scan.
    static func readFirstSource(_ query: CompiledQuery, where condition: CompiledExpression?, in core: DatabaseCore,
                                evaluator: QueryEvaluator) throws -> [QueryRow] {
        switch try QueryPlanner.plan(condition, testsDeletion: query.testsDeletion, in: core, evaluator: evaluator) {
        case .scan:
            return try scan(where: condition, includeDeleted: query.testsDeletion, in: core, evaluator: evaluator)
        case .index(let index, let lower, let upper):
            // Candidates from the index, in document-ID order as a scan would give them; each
            // is checked against the whole condition.
            var rows: [QueryRow] = []
            let ids = Set(try index.documentIDs(from: lower, to: upper, in: core))
            for id in ids.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
                guard let row = try document(id, in: core) else { continue }
                if let condition, !(try evaluator.evaluate(condition, row).isTruthy) { continue }
                rows.append(row)
            }
            return rows
        }
    }

    /// Every document passing `condition`. Bodies are read in place (no copy, no tree
    /// decoding); only rows that pass get their own copy. Rows come in the engine's order and
    /// are put in document-ID order, as a key-ordered scan would give them.
    private static func scan(where condition: CompiledExpression?, includeDeleted: Bool, in core: DatabaseCore,
                             evaluator: QueryEvaluator) throws -> [QueryRow] {
        var rows: [QueryRow] = []
        let keys = FleeceKeyTable(core.sharedKeys)
        let filter = ScanFilter(condition, keys: keys)
        let empty = try FleeceDocument(bytes: StoredDocument.emptyDictionary, trusted: true)
        try core.documents.visitRecords(options: RecordEnumerationOptions(includeDeleted: includeDeleted)) { view in
            let isDeleted = view.flags.contains(.deleted)
            let bytes = isDeleted ? nil : try StoredDocument.currentBody(inRecordBody: view.body)
            let body: FleeceDocument
            if let bytes, bytes.count > 0 {
                body = try FleeceDocument(borrowing: bytes, keys: keys)
            } else {
                body = empty
            }
            if !filter.isEmpty, !filter.mayPass(body.root) { return true }
            let candidate = QueryRow(id: view.keyString, sequence: view.sequence, isDeleted: isDeleted,
                                     expiration: view.expiration, body: body)
            if let condition, !(try evaluator.evaluate(condition, candidate).isTruthy) { return true }
            let owned = try bytes.flatMap { $0.count > 0 ? $0 : nil }.map {
                try FleeceDocument(copying: $0, sharedKeys: core.sharedKeys, trusted: true)
            } ?? empty
            rows.append(QueryRow(id: candidate.id, sequence: view.sequence, isDeleted: isDeleted,
                                 expiration: view.expiration, body: owned))
            return true
        }
        rows.sort { $0.id.utf8.lexicographicallyPrecedes($1.id.utf8) }
        return rows
    }

    /// The live document `id` as a row, or nil.
    static func document(_ id: String, in core: DatabaseCore) throws -> QueryRow? {
        guard let record = try core.documents.get(id), !record.flags.contains(.deleted) else { return nil }
        let document = try StoredDocument(record: record)
        return QueryRow(id: record.key, sequence: record.sequence, isDeleted: false, expiration: record.expiration,
                        body: try document.body(sharedKeys: core.sharedKeys, trusted: true))
    }
}
