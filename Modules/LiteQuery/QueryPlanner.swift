import LiteDatabase

/// Chooses how a query reads documents: a value index when WHERE (or one of its ANDed terms)
/// compares the index's first expression with a constant (`=`, `<`, `<=`, `>`, `>=`, BETWEEN),
/// else a full scan. Index bounds are inclusive and every candidate is checked against the
/// whole WHERE, so an index can only narrow the reading, never change the rows.
enum QueryPlanner {
    enum Plan {
        case scan
        case index(ValueIndex, lower: QueryValue?, upper: QueryValue?)
    }

    static func plan(_ query: CompiledQuery, in core: DatabaseCore, evaluator: QueryEvaluator) throws -> Plan {
        guard let whereClause = query.whereClause, !query.testsDeletion else { return .scan }
        let indexes = core.registeredIndexers.compactMap { $0 as? ValueIndex }
        guard !indexes.isEmpty else { return .scan }
        let terms = conjuncts(whereClause)
        var best: Plan = .scan
        for index in indexes {
            guard let first = index.expressions.first else { continue }
            for term in terms {
                guard let (lower, upper) = try bounds(term, on: first, evaluator: evaluator) else { continue }
                if lower != nil, lower == upper { return .index(index, lower: lower, upper: upper) }   // equality: best
                if case .scan = best { best = .index(index, lower: lower, upper: upper) }
            }
        }
        return best
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

    private static func bounds(_ term: CompiledExpression, on key: CompiledExpression,
                               evaluator: QueryEvaluator) throws -> (QueryValue?, QueryValue?)? {
        let none = QueryRow(id: "", sequence: 0, isDeleted: false, expiration: nil, body: nil)
        func value(_ expression: CompiledExpression) throws -> QueryValue? {
            let result = try evaluator.evaluate(expression, none)
            return result == .missing || result == .null ? nil : result
        }
        guard case .call(let op, let operands) = term else { return nil }
        if op == "BETWEEN", operands.count == 3, operands[0] == key, isConstant(operands[1]), isConstant(operands[2]) {
            guard let low = try value(operands[1]), let high = try value(operands[2]) else { return nil }
            return (low, high)
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
        case "=", "==": return (bound, bound)
        case "<", "<=": return (nil, bound)
        default: return (bound, nil)
        }
    }
}
