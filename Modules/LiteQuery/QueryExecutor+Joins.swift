import Fleece
import LiteDatabase

extension QueryExecutor {
    /// The rows after one more source: each row paired with the documents of a join that meet
    /// its ON condition (kept once with nothing for a LEFT OUTER join that finds none), or with
    /// each element of an UNNEST-ed array.
    static func expand(_ rows: [QueryRow], by join: CompiledQuery.JoinedSource, in core: DatabaseCore,
                       evaluator: QueryEvaluator, keeping paths: [[FleecePath.Component]]? = nil) throws -> [QueryRow] {
        var output: [QueryRow] = []
        if case .unnest(let array) = join.kind {
            for row in rows {
                guard case .array(let items) = try evaluator.evaluate(array, row) else { continue }
                for item in items {
                    output.append(row.binding(join.alias, to: .value(item)))
                }
            }
            return output
        }
        let probe = JoinProbe(join, joinedAliases: [join.alias], in: core, keeping: paths)
        var cache = JoinProbe.DocumentCache()
        for row in rows {
            var matched = false
            try probe.visitCandidates(for: row, evaluator: evaluator, cache: &cache) { candidate in
                let joined = row.binding(join.alias, to: .document(candidate))
                if let on = probe.residualOn, !(try evaluator.evaluate(on, joined).isTruthy) { return }
                output.append(joined)
                matched = true
            }
            if !matched, case .leftOuter = join.kind {
                output.append(row.binding(join.alias, to: .missing))
            }
        }
        return output
    }
}

/// How a join finds the documents to pair with a row: by document ID when ON compares the
/// joined source's `Meta.id` with something of the row, through a value index when ON compares
/// an indexed property of the joined source with something of the row, else every document.
/// Candidates are always checked against the whole ON condition.
struct JoinProbe: CustomStringConvertible {
    private enum Method {
        case byID(CompiledExpression)
        case byIndex(ValueIndex, CompiledExpression)
        case everyDocument
    }

    /// Documents read once per query, each kept only when it passes ``ownTerms``: by ID, and
    /// all of them for a join without a probe; an index's candidates per probed value (keyed by
    /// its index encoding, which keeps apart strings that Swift's `==` would equate).
    struct DocumentCache {
        var byID: [ExactString: QueryRow?] = [:]
        var all: [QueryRow]?
        var byValue: [[UInt8]: [QueryRow]] = [:]
    }

    private let alias: String
    private let method: Method
    private let core: DatabaseCore
    /// ON's ANDed terms that read the joined document alone (`a.type = 'airport'`): a document
    /// that fails them pairs with no row, so they are tested once per document, not per pair.
    private let ownTerms: CompiledExpression?
    /// What a candidate must still meet of ON: its terms but ``ownTerms`` (every candidate has
    /// passed them) and, for a join by ID, the term the lookup used (a document found by the
    /// value's ID has exactly that ID, so the term holds). Checking those again per pair was
    /// half of a join's time.
    let residualOn: CompiledExpression?

    /// The paths whose values a document the join finds keeps instead of its body (one whose
    /// value at one of them is an array, an object or data keeps its body).
    private let kept: KeptPropertyValues?

    init(_ join: CompiledQuery.JoinedSource, joinedAliases: Set<String>, in core: DatabaseCore,
         keeping paths: [[FleecePath.Component]]? = nil) {
        alias = join.alias
        self.core = core
        kept = KeptPropertyValues(paths, keys: FleeceKeyTable(core.sharedKeys))
        ownTerms = .and((join.on?.conjuncts ?? []).filter { $0.readsOnly(alias: join.alias) && $0.reads(anyOf: [join.alias]) })
        var method = Method.everyDocument
        var lookupTerm: CompiledExpression?
        let indexes = core.registeredIndexers.compactMap { $0 as? ValueIndex }
        let own: Set = [join.alias]
        search: for term in join.on?.conjuncts ?? [] {
            guard case .call(let name, let operands) = term, name == "=" || name == "==", operands.count == 2 else { continue }
            for (side, other) in [(operands[0], operands[1]), (operands[1], operands[0])] where !other.reads(anyOf: own) {
                if case .meta(join.alias?, "_id") = side {
                    method = .byID(other)
                    lookupTerm = term
                    break search
                }
                if case .property(join.alias?, let path) = side, !path.isEmpty,
                   let index = indexes.first(where: { $0.expressions.first == .property(alias: nil, path: path) }) {
                    method = .byIndex(index, other)
                }
            }
        }
        self.method = method
        let checked = (ownTerms?.conjuncts ?? []) + [lookupTerm].compactMap { $0 }
        residualOn = .and((join.on?.conjuncts ?? []).filter { term in !checked.contains(term) })
    }

    var description: String {
        switch method {
        case .byID: "join \"\(alias)\" by document ID"
        case .byIndex(let index, _): "join \"\(alias)\" through index \"\(index.name)\""
        case .everyDocument: "join \"\(alias)\" against every document"
        }
    }

    /// Calls `body` with each document that can pair with `row`: found by the probe and passing
    /// ``ownTerms`` (tested once per document, when it is first read).
    func visitCandidates(for row: QueryRow, evaluator: QueryEvaluator, cache: inout DocumentCache,
                         _ body: (QueryRow) throws -> Void) throws {
        switch method {
        case .byID(let expression):
            guard case .string(let id) = try evaluator.evaluate(expression, row) else { return }
            if let found = try document(id, evaluator: evaluator, cache: &cache) { try body(found) }
        case .byIndex(let index, let expression):
            let value = try evaluator.evaluate(expression, row)
            if value == .missing || value == .null { return }
            let key = IndexKey.encode([value])
            if let known = cache.byValue[key] {
                for candidate in known { try body(candidate) }
                return
            }
            // One point of the first expression lists each document once.
            var ids = try index.documentIDs(from: value, to: value, in: core)
            if index.expressions.count > 1 { ids.sort { $0.precedesInByteOrder($1) } }
            let found = try ids.compactMap { try document($0, evaluator: evaluator, cache: &cache) }
            cache.byValue[key] = found
            for candidate in found { try body(candidate) }
        case .everyDocument:
            if let all = cache.all {
                for candidate in all { try body(candidate) }
                return
            }
            var all: [QueryRow] = []
            let enumerator = try core.documents.enumerate(options: .init())
            defer { enumerator.close() }
            while let record = try enumerator.next() {
                let document = try StoredDocument(record: record)
                let candidate = QueryRow(id: record.key, sequence: record.sequence, isDeleted: false, expiration: record.expiration,
                                         body: try document.body(sharedKeys: core.sharedKeys, trusted: true),
                                         revisionID: document.revisionID?.string)
                if try passesOwnTerms(candidate, evaluator: evaluator) { all.append(candidate) }
            }
            cache.all = all
            for candidate in all { try body(candidate) }
        }
    }

    /// Whether `candidate` passes the terms of ON that read it alone.
    private func passesOwnTerms(_ candidate: QueryRow, evaluator: QueryEvaluator) throws -> Bool {
        guard let ownTerms else { return true }
        return try evaluator.evaluate(ownTerms, QueryRow.none.binding(alias, to: .document(candidate))).isTruthy
    }

    /// Document `id` when it is live and passes ``ownTerms``, read once per query.
    private func document(_ id: String, evaluator: QueryEvaluator, cache: inout DocumentCache) throws -> QueryRow? {
        if let known = cache.byID[ExactString(id)] { return known }
        var row = try keptDocument(id) ?? QueryExecutor.document(id, in: core)
        if let found = row, !(try passesOwnTerms(found, evaluator: evaluator)) { row = nil }
        cache.byID[ExactString(id)] = row
        return row
    }

    /// Live document `id` as a row holding the values of ``kept``'s paths, read from its lent
    /// body; nil when there are no such paths, the document is missing or deleted, or one of its
    /// values there is an array, an object or data (the caller reads it whole).
    private func keptDocument(_ id: String) throws -> QueryRow? {
        guard let kept else { return nil }
        var row: QueryRow?
        try core.documents.visitRecord(id) { view in
            guard !view.flags.contains(.deleted), let bytes = try StoredDocument.currentBody(inRecordBody: view.body),
                  let values = kept.values(in: bytes.count > 0 ? try FleeceLentValue(rootOf: bytes) : nil) else { return }
            row = QueryRow(id: view.keyString, sequence: view.sequence, isDeleted: false, expiration: view.expiration,
                           indexValues: values)
        }
        return row
    }
}
