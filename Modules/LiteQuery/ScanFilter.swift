import Fleece
#if canImport(Glibc)
import Glibc
#endif

/// A quick test a scan runs on each document's Fleece body before the full WHERE: the ANDed
/// terms of the form `property <op> literal` (`=`, `!=`, `<`, `<=`, `>`, `>=`), compiled with
/// their keys resolved against the database's shared keys and compared on the Fleece bytes,
/// with no conversion and no allocation. It rejects documents the WHERE would reject (every
/// such term must be true for the WHERE to be), and when the WHERE is nothing but such terms,
/// each comparing values of one type, it also says which documents certainly pass; the others
/// are checked against the whole WHERE, so it can make a read faster but never change its rows.
struct ScanFilter {
    private struct Term {
        let path: [Step]
        let comparison: Comparison
        let literal: Literal
    }

    private enum Step {
        case key(FleeceResolvedKey)
        case index(Int)
    }

    private enum Comparison {
        case equal, notEqual, less, lessOrEqual, greater, greaterOrEqual

        var flipped: Comparison {
            switch self {
            case .less: .greater
            case .lessOrEqual: .greaterOrEqual
            case .greater: .less
            case .greaterOrEqual: .lessOrEqual
            default: self
            }
        }

        func holds(_ order: Int) -> Bool {
            switch self {
            case .equal: order == 0
            case .notEqual: order != 0
            case .less: order < 0
            case .lessOrEqual: order <= 0
            case .greater: order > 0
            case .greaterOrEqual: order >= 0
            }
        }
    }

    private enum Literal {
        case bool(Bool)
        case int(Int64)
        case double(Double)
        case string([UInt8])

        /// N1QL's type rank (false 2, true 3, numbers 4, strings 5).
        var rank: Int {
            switch self {
            case .bool(let flag): flag ? 3 : 2
            case .int, .double: 4
            case .string: 5
            }
        }
    }

    /// What ``verdict(_:)`` found.
    enum Verdict {
        /// The WHERE is certainly not true.
        case fails
        /// The WHERE is certainly true: every one of its ANDed terms is a filter term, and each
        /// compared values of the same type and held.
        case passes
        /// Only the full WHERE can tell.
        case undecided
    }

    private let terms: [Term]
    /// Whether the WHERE is exactly the AND of ``terms`` (nothing else in it).
    private let coversWhere: Bool

    /// Whether there is anything to test.
    var isEmpty: Bool { terms.isEmpty }

    /// The filter for `whereClause`'s eligible terms on the primary source, or an empty one.
    init(_ whereClause: CompiledExpression?, keys: FleeceKeyTable) {
        var terms: [Term] = []
        var covers = true
        func collect(_ expression: CompiledExpression) {
            guard case .call(let name, let operands) = expression else { covers = false; return }
            if name == "AND" { operands.forEach(collect); return }
            // `x BETWEEN a AND b` is `x >= a AND x <= b`, MISSING and NULL included.
            if name == "BETWEEN", operands.count == 3, let path = Self.path(operands[0], keys),
               let low = Self.literal(operands[1]), let high = Self.literal(operands[2]) {
                terms.append(Term(path: path, comparison: .greaterOrEqual, literal: low))
                terms.append(Term(path: path, comparison: .lessOrEqual, literal: high))
                return
            }
            let comparisons: [String: Comparison] = ["=": .equal, "==": .equal, "!=": .notEqual, "<>": .notEqual,
                                                     "<": .less, "<=": .lessOrEqual, ">": .greater, ">=": .greaterOrEqual]
            guard let comparison = comparisons[name], operands.count == 2 else { covers = false; return }
            if let path = Self.path(operands[0], keys), let literal = Self.literal(operands[1]) {
                terms.append(Term(path: path, comparison: comparison, literal: literal))
            } else if let path = Self.path(operands[1], keys), let literal = Self.literal(operands[0]) {
                terms.append(Term(path: path, comparison: comparison.flipped, literal: literal))
            } else {
                covers = false
            }
        }
        if let whereClause { collect(whereClause) }
        self.terms = terms
        coversWhere = covers && !terms.isEmpty
    }

    private static func path(_ expression: CompiledExpression, _ keys: FleeceKeyTable) -> [Step]? {
        guard case .property(nil, let components) = expression, !components.isEmpty else { return nil }
        return components.map {
            switch $0 {
            case .key(let key): .key(keys.resolve(key))
            case .index(let index): .index(index)
            }
        }
    }

    private static func literal(_ expression: CompiledExpression) -> Literal? {
        guard case .literal(let value) = expression else { return nil }
        switch value {
        case .bool(let flag): return .bool(flag)
        case .int(let number): return .int(number)
        case .double(let number): return .double(number)
        case .string(let text): return .string(Array(text.utf8))
        default: return nil   // null and missing make the term NULL/MISSING: left to the WHERE
        }
    }

    /// Whether the document whose root is `root` fails the WHERE, certainly passes it (a row
    /// then needs no evaluation of the WHERE), or needs the WHERE to tell. Reads the record's
    /// lent bytes in place: no document object, no reference counting, no copies.
    func verdict(_ root: FleeceLentValue) -> Verdict {
        var decided = coversWhere
        for term in terms {
            guard let value = Self.walk(root, term.path) else { return .fails }   // MISSING
            guard let order = Self.order(value, term.literal) else {              // not decided here
                decided = false
                continue
            }
            if !term.comparison.holds(order) { return .fails }
            // Values of different types compare by type rank here; the WHERE is left to say so.
            if decided, Self.rank(value) != term.literal.rank { decided = false }
        }
        return decided ? .passes : .undecided
    }

    /// N1QL's type rank of a value whose type ``order(_:_:)`` decides.
    private static func rank(_ value: FleeceLentValue) -> Int {
        switch value.type {
        case .boolean: value.bool ? 3 : 2
        case .number: 4
        case .string: 5
        case .array: 6
        case .dictionary: 7
        case .null, .undefined, .data: 0
        }
    }

    private static func walk(_ root: FleeceLentValue, _ path: [Step]) -> FleeceLentValue? {
        var value = root
        for step in path {
            let next: FleeceLentValue?
            switch step {
            case .key(let key): next = value.value(for: key)
            case .index(let index): next = value.element(at: index)
            }
            guard let next else { return nil }
            value = next
        }
        return value.isUndefined ? nil : value
    }

    /// The collation order of `value` against `literal` as the WHERE's comparison computes it,
    /// or nil when this filter leaves the decision to the WHERE (null, data).
    private static func order(_ value: FleeceLentValue, _ literal: Literal) -> Int? {
        let rank: Int
        switch value.type {
        case .null, .undefined, .data: return nil
        case .boolean: rank = value.bool ? 3 : 2
        case .number: rank = 4
        case .string: rank = 5
        case .array: rank = 6
        case .dictionary: rank = 7
        }
        if rank != literal.rank { return rank < literal.rank ? -1 : 1 }
        switch literal {
        case .bool: return 0
        case .string(let bytes):
            return value.withPayload { payload in
                bytes.withUnsafeBytes { compare(payload, $0) }
            }
        case .int(let number):
            if value.isInteger, !(value.isUnsigned && value.uint64 > UInt64(Int64.max)) {
                let stored = value.int64
                return stored == number ? 0 : (stored < number ? -1 : 1)
            }
            return compare(value.double, Double(number))
        case .double(let number):
            if value.isInteger, !(value.isUnsigned && value.uint64 > UInt64(Int64.max)) {
                return compare(Double(value.int64), number)
            }
            return compare(value.double, number)
        }
    }

    private static func compare(_ a: Double, _ b: Double) -> Int { a == b ? 0 : (a < b ? -1 : 1) }

    private static func compare(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Int {
        let common = min(a.count, b.count)
        if common > 0, let left = a.baseAddress, let right = b.baseAddress {
            let order = memcmp(left, right, common)
            if order != 0 { return order < 0 ? -1 : 1 }
        }
        return a.count == b.count ? 0 : (a.count < b.count ? -1 : 1)
    }
}
