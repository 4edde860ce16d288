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
    // Terms, path steps and literals are plain values with their bytes in one array, so that
    // testing a record retains and releases nothing (copying terms that held arrays was two
    // fifths of the filter's time).
    private struct Term {
        /// The path: `steps[pathStart ..< pathStart + pathCount]`.
        let pathStart: Int
        let pathCount: Int
        let comparison: Comparison
        let literal: Literal
    }

    private typealias Step = LentPropertyPath.Step

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
        /// UTF-8 at `bytes[start ..< start + count]`.
        case string(start: Int, count: Int)

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

    /// The comparison operators a term can use (made once: a dictionary literal in the
    /// initializer was built again for every term of every run).
    private static let comparisons: [String: Comparison] = ["=": .equal, "==": .equal, "!=": .notEqual, "<>": .notEqual,
                                                            "<": .less, "<=": .lessOrEqual, ">": .greater, ">=": .greaterOrEqual]

    private let terms: [Term]
    private let steps: [Step]
    /// The keys' and string literals' UTF-8.
    private let bytes: [UInt8]
    /// Whether the WHERE is exactly the AND of ``terms`` (nothing else in it).
    private let coversWhere: Bool

    /// Whether there is anything to test.
    var isEmpty: Bool { terms.isEmpty }

    /// The filter for `whereClause`'s eligible terms on the primary source, or an empty one.
    init(_ whereClause: CompiledExpression?, keys: FleeceKeyTable) {
        var terms: [Term] = []
        var steps: [Step] = []
        var bytes: [UInt8] = []
        var covers = true
        func path(_ expression: CompiledExpression) -> (start: Int, count: Int)? {
            LentPropertyPath.append(expression, keys: keys, to: &steps, bytes: &bytes)
        }
        func literal(_ expression: CompiledExpression) -> Literal? {
            guard case .literal(let value) = expression else { return nil }
            switch value {
            case .bool(let flag): return .bool(flag)
            case .int(let number): return .int(number)
            case .double(let number): return .double(number)
            case .string(let text):
                let start = bytes.count
                bytes += text.utf8
                return .string(start: start, count: bytes.count - start)
            default: return nil   // null and missing make the term NULL/MISSING: left to the WHERE
            }
        }
        func isPath(_ expression: CompiledExpression) -> Bool {
            if case .property(nil, let components) = expression { return !components.isEmpty }
            return false
        }
        func isLiteral(_ expression: CompiledExpression) -> Bool {
            guard case .literal(let value) = expression else { return false }
            switch value {
            case .bool, .int, .double, .string: return true
            default: return false
            }
        }
        func collect(_ expression: CompiledExpression) {
            guard case .call(let name, let operands) = expression else { covers = false; return }
            if name == "AND" { operands.forEach(collect); return }
            // `x BETWEEN a AND b` is `x >= a AND x <= b`, MISSING and NULL included.
            if name == "BETWEEN", operands.count == 3, isPath(operands[0]), isLiteral(operands[1]), isLiteral(operands[2]),
               let range = path(operands[0]), let low = literal(operands[1]), let high = literal(operands[2]) {
                terms.append(Term(pathStart: range.start, pathCount: range.count, comparison: .greaterOrEqual, literal: low))
                terms.append(Term(pathStart: range.start, pathCount: range.count, comparison: .lessOrEqual, literal: high))
                return
            }
            guard let comparison = Self.comparisons[name], operands.count == 2 else { covers = false; return }
            if isPath(operands[0]), isLiteral(operands[1]), let range = path(operands[0]), let value = literal(operands[1]) {
                terms.append(Term(pathStart: range.start, pathCount: range.count, comparison: comparison, literal: value))
            } else if isPath(operands[1]), isLiteral(operands[0]), let range = path(operands[1]), let value = literal(operands[0]) {
                terms.append(Term(pathStart: range.start, pathCount: range.count, comparison: comparison.flipped, literal: value))
            } else {
                covers = false
            }
        }
        if let whereClause { collect(whereClause) }
        self.terms = terms
        self.steps = steps
        self.bytes = bytes
        coversWhere = covers && !terms.isEmpty
    }

    /// Whether the document whose root is `root` fails the WHERE, certainly passes it (a row
    /// then needs no evaluation of the WHERE), or needs the WHERE to tell. Reads the record's
    /// lent bytes in place: no document object, no reference counting, no copies.
    func verdict(_ root: FleeceLentValue) -> Verdict {
        terms.withUnsafeBufferPointer { terms in
            steps.withUnsafeBufferPointer { steps in
                bytes.withUnsafeBytes { bytes in
                    var decided = coversWhere
                    for term in terms {
                        // MISSING fails every comparison.
                        guard let value = Self.walk(root, steps[term.pathStart..<(term.pathStart + term.pathCount)], bytes) else {
                            return .fails
                        }
                        guard let order = Self.order(value, term.literal, bytes) else {   // not decided here
                            decided = false
                            continue
                        }
                        if !term.comparison.holds(order) { return .fails }
                        // Values of different types compare by type rank here; the WHERE is left to say so.
                        if decided, Self.rank(value) != term.literal.rank { decided = false }
                    }
                    return decided ? .passes : .undecided
                }
            }
        }
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

    /// The value at `path` under `root`, or nil when it is MISSING.
    private static func walk(_ root: FleeceLentValue, _ path: Slice<UnsafeBufferPointer<Step>>,
                             _ bytes: UnsafeRawBufferPointer) -> FleeceLentValue? {
        guard let value = LentPropertyPath.walk(root, path, bytes) else { return nil }
        return value.isUndefined ? nil : value
    }

    /// The collation order of `value` against `literal` as the WHERE's comparison computes it,
    /// or nil when this filter leaves the decision to the WHERE (null, data).
    private static func order(_ value: FleeceLentValue, _ literal: Literal, _ bytes: UnsafeRawBufferPointer) -> Int? {
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
        case .string(let start, let count):
            return value.withPayload { compare($0, UnsafeRawBufferPointer(rebasing: bytes[start..<(start + count)])) }
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
