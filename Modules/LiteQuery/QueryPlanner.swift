import LiteDatabase

/// Chooses how a query reads documents: a value index when WHERE (or one of its ANDed terms)
/// compares the index's first expression with a constant (`=`, `<`, `<=`, `>`, `>=`, BETWEEN,
/// `IN` a constant array, `LIKE` a pattern with a literal prefix), else a full scan. Index
/// ranges are inclusive and every candidate is checked against the whole WHERE, so an index can
/// only narrow the reading, never change the rows.
enum QueryPlanner {
    enum Plan {
        case scan
        case index(ValueIndex, [IndexRange])
    }

    static func plan(_ whereClause: CompiledExpression?, testsDeletion: Bool, in core: DatabaseCore,
                     evaluator: QueryEvaluator,
                     orderBy: [(expression: CompiledExpression, descending: Bool)]? = nil) throws -> Plan {
        guard let whereClause, !testsDeletion else { return .scan }
        let indexes = core.registeredIndexers.compactMap { $0 as? ValueIndex }
        guard !indexes.isEmpty else { return .scan }
        let terms = conjuncts(whereClause)
        var best: Plan = .scan
        var bestCost = Int.max
        for index in indexes {
            guard let first = index.expressions.first else { continue }
            for term in terms {
                guard let ranges = try ranges(term, on: first, evaluator: evaluator) else { continue }
                // Points beat prefixes beat ranges; fewer of each is better.
                let cost = ranges.reduce(0) { total, range in
                    switch range {
                    case .between(let lower, let upper) where lower != nil && lower == upper: total + 1
                    case .stringPrefix: total + 10
                    default: total + 100
                    }
                }
                // On a tie, an index that also gives the ORDER BY wins.
                let serves = orderBy.map { servesOrder(index, ranges, $0) != nil } ?? false
                let weighted = cost * 2 + (serves ? 0 : 1)
                if weighted < bestCost { (best, bestCost) = (.index(index, ranges), weighted) }
            }
            // Equalities on two or more leading expressions narrow to their common key prefix.
            let fixed = try leadingEqualities(index, terms, evaluator: evaluator)
            if fixed.count >= 2 {
                let ranges = [IndexRange.values(fixed)]
                let serves = orderBy.map { servesOrder(index, ranges, $0) != nil } ?? false
                let weighted = serves ? 0 : 1
                if weighted < bestCost { (best, bestCost) = (.index(index, ranges), weighted) }
            }
        }
        return best
    }

    /// The constants WHERE's ANDed `=` terms give the index's first expressions, in order, up
    /// to the first expression without one.
    private static func leadingEqualities(_ index: ValueIndex, _ terms: [CompiledExpression],
                                          evaluator: QueryEvaluator) throws -> [QueryValue] {
        var values: [QueryValue] = []
        for expression in index.expressions {
            var found: QueryValue?
            for term in terms {
                guard case .call(let op, let operands) = term, op == "=" || op == "==", operands.count == 2 else { continue }
                let constant: CompiledExpression
                if operands[0] == expression, isConstant(operands[1]) { constant = operands[1] }
                else if operands[1] == expression, isConstant(operands[0]) { constant = operands[0] }
                else { continue }
                let value = try evaluator.evaluate(constant, .none)
                if value != .missing && value != .null { found = value; break }
            }
            guard let found else { break }
            values.append(found)
        }
        return values
    }

    /// Whether reading `ranges` of `index` in index order (forwards, or backwards for a
    /// descending ORDER BY) gives rows in `orderBy`'s order up to ties: one range, ORDER BY
    /// naming the index's leading expressions in one direction (after the first when the range
    /// is one value of it). Returns whether to read backwards, or nil.
    static func servesOrder(_ index: ValueIndex, _ ranges: [IndexRange],
                            _ orderBy: [(expression: CompiledExpression, descending: Bool)]) -> Bool? {
        guard ranges.count == 1, let first = orderBy.first, orderBy.allSatisfy({ $0.descending == first.descending }) else {
            return nil
        }
        let expressions = index.expressions
        func leads(from start: Int) -> Bool {
            start + orderBy.count <= expressions.count
                && zip(expressions[start...], orderBy).allSatisfy { $0 == $1.expression }
        }
        return leads(from: 0) || (ranges[0].fixedValues > 0 && leads(from: ranges[0].fixedValues)) ? first.descending : nil
    }

    private static func conjuncts(_ expression: CompiledExpression) -> [CompiledExpression] {
        if case .call("AND", let operands) = expression { return operands.flatMap(conjuncts) }
        return [expression]
    }

    /// A value that needs no document: a literal, a parameter, or an operation on those.
    private static func isConstant(_ expression: CompiledExpression) -> Bool {
        switch expression {
        case .literal, .parameter: return true
        case .call(let name, let operands): return !QueryFunctions.aggregates.contains(name) && name != "MATCH()"
            && name != "RANK()" && name != "MATCH_OFFSETS()" && operands.allSatisfy(isConstant)
        default: return false
        }
    }

    private static func ranges(_ term: CompiledExpression, on key: CompiledExpression,
                               evaluator: QueryEvaluator) throws -> [IndexRange]? {
        func value(_ expression: CompiledExpression) throws -> QueryValue? {
            let result = try evaluator.evaluate(expression, .none)
            return result == .missing || result == .null ? nil : result
        }
        guard case .call(let op, let operands) = term else { return nil }
        if op == "BETWEEN", operands.count == 3, operands[0] == key, isConstant(operands[1]), isConstant(operands[2]) {
            guard let low = try value(operands[1]), let high = try value(operands[2]) else { return nil }
            return [.between(low, high)]
        }
        if op == "IN", operands.count == 2, operands[0] == key, isConstant(operands[1]) {
            guard case .array(let items)? = try value(operands[1]) else { return nil }
            let points = items.filter { $0 != .missing && $0 != .null }
            return points.count <= 256 ? points.map { .between($0, $0) } : nil
        }
        if op == "LIKE", operands.count == 2, operands[0] == key, isConstant(operands[1]) {
            guard case .string(let pattern)? = try value(operands[1]) else { return nil }
            return likePrefixRanges(pattern)
        }
        guard ["=", "==", "<", "<=", ">", ">="].contains(op), operands.count == 2 else { return nil }
        var comparison = op
        let constant: CompiledExpression
        if operands[0] == key, isConstant(operands[1]) {
            constant = operands[1]
        } else if operands[1] == key, isConstant(operands[0]) {
            constant = operands[0]
            comparison = ["<": ">", "<=": ">=", ">": "<", ">=": "<="][op] ?? op
        } else {
            return nil
        }
        guard let bound = try value(constant) else { return nil }
        switch comparison {
        case "=", "==": return [.between(bound, bound)]
        case "<", "<=": return [.between(nil, bound)]
        default: return [.between(bound, nil)]
        }
    }

    /// The string prefixes a case-insensitive LIKE pattern's matches must start with: every
    /// upper/lower-case spelling of the pattern's literal ASCII start (up to 6 letters, so 64
    /// ranges at most). Stops before a wildcard, an escape, a non-ASCII character and `k` (the
    /// Kelvin sign lower-cases to it); nil when nothing is left.
    static func likePrefixRanges(_ pattern: String) -> [IndexRange]? {
        var prefix = ""
        var letters = 0
        for scalar in pattern.unicodeScalars {
            guard scalar.isASCII, !"%_\\kK\u{0}".unicodeScalars.contains(scalar) else { break }
            if scalar.properties.isAlphabetic {
                guard letters < 6 else { break }
                letters += 1
            }
            prefix.unicodeScalars.append(scalar)
        }
        guard !prefix.isEmpty else { return nil }
        var variants = [""]
        for character in prefix {
            let lower = String(character).lowercased(), upper = String(character).uppercased()
            variants = lower == upper ? variants.map { $0 + lower } : variants.flatMap { [$0 + lower, $0 + upper] }
        }
        return variants.map { .stringPrefix($0) }
    }
}

/// A stretch of a value index's first expression, both ends inclusive.
enum IndexRange: CustomStringConvertible {
    /// From `lower` to `upper` (nil: open).
    case between(QueryValue?, QueryValue?)
    /// Every string starting with this text.
    case stringPrefix(String)

    /// Entries whose leading expressions have these values (two or more).
    case values([QueryValue])

    /// Whether the range is one value of the first expression.
    var isPoint: Bool {
        guard case .between(let lower?, let upper?) = self else { return false }
        switch (lower, upper) {
        // Strings by their bytes (Swift's `==` calls canonically equivalent spellings equal, and
        // their keys differ); without encoding them, which cost a short query a tenth of its time.
        case (.string(let low), .string(let high)): return low.utf8.elementsEqual(high.utf8)
        case (.bool(let low), .bool(let high)): return low == high
        case (.int(let low), .int(let high)): return low == high
        default: return lower == upper && IndexKey.encode([lower]) == IndexKey.encode([upper])
        }
    }

    /// How many leading expressions the range fixes to one value each (their entries then come
    /// in the order of the following expressions, then document ID).
    var fixedValues: Int {
        if case .values(let values) = self { return values.count }
        return isPoint ? 1 : 0
    }

    var description: String {
        switch self {
        case .between(let lower, let upper) where lower != nil && lower == upper: return "= \(lower.map { "\($0)" } ?? "")"
        case .between(let lower, let upper):
            return "from \(lower.map { "\($0)" } ?? "open") to \(upper.map { "\($0)" } ?? "open")"
        case .stringPrefix(let prefix): return "strings starting with \"\(prefix)\""
        case .values(let values): return "= " + values.map { "\($0)" }.joined(separator: ", ")
        }
    }
}
