import Fleece
import FoundationEssentials
import LiteSupport

/// Evaluates compiled expressions on rows with N1QL semantics.
struct QueryEvaluator {
    let parameters: [String: QueryValue]
    var variables: [String: QueryValue] = [:]
    /// The rows of the current group, for aggregate functions.
    var group: [QueryRow]?
    /// The hits of each full-text index the query searches: document ID → rank.
    var fullText: [String: [String: Double]] = [:]
    /// `MATCH_OFFSETS()` of each full-text index the query searches: document ID → offsets.
    var fullTextOffsets: [String: [String: QueryValue]] = [:]
    /// The collation strings are compared under (set by COLLATE around or beside a comparison).
    var collation: (ignoreCase: Bool, ignoreAccents: Bool)?

    private func folded(_ value: QueryValue) -> QueryValue {
        guard let collation else { return value }
        return Self.collated(value, ignoreCase: collation.ignoreCase, ignoreAccents: collation.ignoreAccents)
    }

    func evaluate(_ expression: CompiledExpression, _ row: QueryRow) throws -> QueryValue {
        switch expression {
        case .literal(let value):
            return folded(value)
        case .property(let alias, let path):
            if let alias, let binding = row.binding(alias) {
                switch binding {
                case .document(let joined): return property(path, of: joined)
                case .value(let value): return folded(Self.walk(value, path))
                case .missing: return .missing
                }
            }
            return property(path, of: row)
        case .meta(let alias, let key):
            if let alias, let binding = row.binding(alias) {
                guard case .document(let joined) = binding else { return .missing }
                return Self.meta(key, of: joined)
            }
            return Self.meta(key, of: row)
        case .parameter(let name):
            guard let value = parameters[name] else {
                throw QueryError("parameter $\(name) has no value; set it in the query's parameters")
            }
            return value
        case .variable(let name, let path):
            guard let value = variables[name] else { throw QueryError("unknown variable ?\(name)") }
            return Self.walk(value, path)
        case .call(let name, let operands):
            return try call(name, operands, row)
        case .quantified(let kind, let variable, let arrayExpression, let condition):
            let items: [QueryValue]
            switch try evaluate(arrayExpression, row) {
            case .array(let elements): items = elements
            case .dictionary(let entries): items = Array(entries.values)   // ANY over an object: its values
            default: return kind == "EVERY" ? .bool(true) : .bool(false)
            }
            var inner = self
            var any = false, every = true
            for item in items {
                inner.variables[variable] = item
                let result = try inner.evaluate(condition, row).isTruthy
                any = any || result
                every = every && result
            }
            switch kind {
            case "ANY": return .bool(any)
            case "EVERY": return .bool(every)
            default: return .bool(!items.isEmpty && every)
            }
        case .collate(let ignoreCase, let ignoreAccents, let inner):
            var scoped = self
            scoped.collation = (ignoreCase, ignoreAccents)
            return try scoped.evaluate(inner, row)
        }
    }

    /// The property at `path` of `row`'s own document (not through a joined alias).
    private func property(_ path: [FleecePath.Component], of row: QueryRow) -> QueryValue {
        guard let root = row.body?.root else { return folded(row.indexValues?.value(at: path) ?? .missing) }
        if path.isEmpty { return QueryValue(root) }
        return folded(QueryValue(FleecePath(components: path).evaluate(on: root)))
    }

    /// Metadata `key` (`_id`, `_sequence`, …) of `row`'s own document.
    private static func meta(_ key: String, of row: QueryRow) -> QueryValue {
        switch key {
        case "_id": .string(row.id)
        case "_sequence": .int(Int64(clamping: row.sequence))
        case "_deleted": .bool(row.isDeleted)
        case "_expiration": row.expiration.map { .int($0) } ?? .missing
        case "_revisionID": row.revisionID.map { .string($0) } ?? .missing
        default: .missing
        }
    }

    /// A value folded as a collation compares it (case, accents), so comparisons of folded
    /// values follow that collation.
    static func collated(_ value: QueryValue, ignoreCase: Bool, ignoreAccents: Bool) -> QueryValue {
        guard case .string(var text) = value else { return value }
        if ignoreAccents { text = text.removingDiacritics() }
        if ignoreCase { text = text.lowercased() }
        return .string(text)
    }

    static func walk(_ value: QueryValue, _ path: [FleecePath.Component]) -> QueryValue {
        var current = value
        for component in path {
            switch (component, current) {
            case let (.key(key), .dictionary(entries)): current = entries[key] ?? .missing
            case let (.index(index), .array(items)):
                let position = index < 0 ? items.count + index : index
                current = items.indices.contains(position) ? items[position] : .missing
            default: return .missing
            }
        }
        return current
    }

    private func call(_ name: String, _ operands: [CompiledExpression], _ row: QueryRow) throws -> QueryValue {
        if QueryFunctions.aggregates.contains(name) { return try aggregate(name, operands[0]) }
        if name == "MATCH()" || name == "RANK()" || name == "MATCH_OFFSETS()" {
            guard case .literal(.string(let index)) = operands.first, let hits = fullText[index] else {
                throw QueryError("\(name) needs the name of a full-text index the query matches against")
            }
            if name == "MATCH_OFFSETS()" { return fullTextOffsets[index]?[row.id] ?? .missing }
            if name == "MATCH()" { return .bool(hits[row.id] != nil) }
            return hits[row.id].map { .double($0) } ?? .missing
        }
        switch name {
        case "AND":
            return try logical(operands, row, deciding: false)
        case "OR":
            return try logical(operands, row, deciding: true)
        case "CASE", "CASE WHEN":
            return try caseValue(searched: name == "CASE WHEN", operands, row)
        default:
            break
        }
        // A collation on one side of a comparison applies to both sides.
        var scoped = self
        for operand in operands {
            if case .collate(let ignoreCase, let ignoreAccents, _) = operand { scoped.collation = (ignoreCase, ignoreAccents) }
        }
        let values = try operands.map { try scoped.evaluate($0, row) }
        return try QueryOperators.apply(name, values)
    }

    /// CASE evaluates only the branch it takes. Simple: the first WHEN equal (`=`) to the
    /// subject; searched: the first true WHEN. No branch and no ELSE: NULL (N1QL).
    /// AND (`deciding` false) or OR (`deciding` true): the first operand whose truth is `deciding`
    /// decides. Otherwise AND gives MISSING before NULL, and OR NULL before MISSING.
    private func logical(_ operands: [CompiledExpression], _ row: QueryRow, deciding: Bool) throws -> QueryValue {
        var sawMissing = false, sawNull = false
        for operand in operands {
            let value = try evaluate(operand, row)
            switch value {
            case .missing: sawMissing = true
            case .null: sawNull = true
            default: if value.isTruthy == deciding { return .bool(deciding) }
            }
        }
        if deciding { return sawNull ? .null : sawMissing ? .missing : .bool(false) }
        return sawMissing ? .missing : sawNull ? .null : .bool(true)
    }

    private func caseValue(searched: Bool, _ operands: [CompiledExpression], _ row: QueryRow) throws -> QueryValue {
        var branches = operands[...]
        let subject = searched ? nil : try evaluate(branches.removeFirst(), row)
        while branches.count >= 2 {
            let test = try evaluate(branches.removeFirst(), row)
            let result = branches.removeFirst()
            let taken = try subject.map { try QueryOperators.apply("=", [$0, test]) } ?? test
            if taken.isTruthy { return try evaluate(result, row) }
        }
        return try branches.first.map { try evaluate($0, row) } ?? .null
    }

    private func aggregate(_ name: String, _ operand: CompiledExpression) throws -> QueryValue {
        guard let group else { throw QueryError("\(name) is an aggregate: use it in a grouped query or alone") }
        // COUNT(*) counts rows: no need to read the documents (rows past WHERE may hold none).
        if name == "COUNT()", case .property(_, let path) = operand, path.isEmpty {
            return .int(Int64(group.count))
        }
        var inner = self
        inner.group = nil
        let values = try group.map { try inner.evaluate(operand, $0) }.filter { $0 != .missing && $0 != .null }
        switch name {
        case "COUNT()": return .int(Int64(values.count))
        case "SUM()", "AVG()":
            let numbers = values.compactMap(\.number)
            let allInts = values.allSatisfy { if case .int = $0 { true } else { false } }
            let sum = numbers.reduce(0, +)
            // Nothing to add up is NULL for both (N1QL, and SQL's SUM that 2.8 runs), not 0.
            if numbers.isEmpty { return .null }
            if name == "AVG()" { return .double(sum / Double(numbers.count)) }
            if allInts, let exact = Int64(exactly: sum) { return .int(exact) }
            return .double(sum)
        case "MIN()": return values.min { QueryValue.compare($0, $1) < 0 } ?? .null
        default: return values.max { QueryValue.compare($0, $1) < 0 } ?? .null
        }
    }
}
