import Fleece
import LiteDatabase
import LiteStorage

extension QueryExecutor {
    /// The first source's rows that pass `condition`, in document-ID order: through a value
    /// index when the planner finds one, else a scan.
    static func readFirstSource(_ query: CompiledQuery, where condition: CompiledExpression?, in core: DatabaseCore,
                                evaluator: QueryEvaluator) throws -> [QueryRow] {
        let reader = try PassingRowReader(condition: condition, core: core, evaluator: evaluator)
        var rows: [QueryRow] = []
        switch try QueryPlanner.plan(condition, testsDeletion: query.testsDeletion, in: core, evaluator: evaluator) {
        case .scan:
            // Rows come in the engine's order and are put in document-ID order below, as a
            // key-ordered scan would give them.
            try core.documents.visitRecords(options: RecordEnumerationOptions(includeDeleted: query.testsDeletion)) { view in
                if let row = try reader.row(view) { rows.append(row) }
                return true
            }
            rows.sort { $0.id.precedesInByteOrder($1.id) }
        case .index(let index, let ranges):
            // Candidates from the index, in document-ID order as a scan would give them; each
            // is checked against the whole condition.
            // One equality range lists its documents in ID order already, each once.
            var ids = try index.documentIDs(in: ranges, in: core)
            if !(ranges.count == 1 && ranges[0].isPoint) {
                ids = Set(ids).sorted { $0.precedesInByteOrder($1) }
            }
            for id in ids {
                try core.documents.visitRecord(id) { view in
                    if !view.flags.contains(.deleted), let row = try reader.row(view) { rows.append(row) }
                }
            }
        }
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

/// Turns lent records into rows for those that pass a condition: the body is read in place
/// (no copy, no tree decoding), a ``ScanFilter`` rejects most failures without converting any
/// value, the condition decides, and only a passing row gets its own copy of the body.
private struct PassingRowReader {
    let condition: CompiledExpression?
    let core: DatabaseCore
    let evaluator: QueryEvaluator
    let keys: FleeceKeyTable
    let filter: ScanFilter
    let empty: FleeceDocument

    init(condition: CompiledExpression?, core: DatabaseCore, evaluator: QueryEvaluator) throws {
        self.condition = condition
        self.core = core
        self.evaluator = evaluator
        keys = FleeceKeyTable(core.sharedKeys)
        filter = ScanFilter(condition, keys: keys)
        empty = try FleeceDocument(bytes: StoredDocument.emptyDictionary, trusted: true)
    }

    func row(_ view: RecordView) throws -> QueryRow? {
        let isDeleted = view.flags.contains(.deleted)
        let bytes = isDeleted ? nil : try StoredDocument.currentBody(inRecordBody: view.body)
        let body: FleeceDocument
        if let bytes, bytes.count > 0 {
            body = try FleeceDocument(borrowing: bytes, keys: keys)
        } else {
            body = empty
        }
        if !filter.isEmpty, !filter.mayPass(body.root) { return nil }
        let candidate = QueryRow(id: view.keyString, sequence: view.sequence, isDeleted: isDeleted,
                                 expiration: view.expiration, body: body)
        if let condition, !(try evaluator.evaluate(condition, candidate).isTruthy) { return nil }
        let owned = try bytes.flatMap { $0.count > 0 ? $0 : nil }.map {
            try FleeceDocument(copying: $0, sharedKeys: core.sharedKeys, trusted: true)
        } ?? empty
        return QueryRow(id: candidate.id, sequence: view.sequence, isDeleted: isDeleted, expiration: view.expiration, body: owned)
    }
}
