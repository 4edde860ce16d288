import Fleece
import Glibc

/// Answering a query from a value index's entries, without reading the documents: when every
/// expression the query evaluates on its one source (WHERE, the columns, ORDER BY, GROUP BY,
/// HAVING) reads only `._id` and properties the index holds, each entry's key gives those
/// values (``IndexKey/decode(_:from:count:)``). An entry whose key does not tell a needed value
/// exactly (null or MISSING, an array or object, or a number whose being an integer matters)
/// is answered from its document instead, so the rows are always the document read's rows.
struct IndexCoverage {
    /// The values one entry's key gives, found by the index's property paths.
    struct Values {
        /// Each index expression's property path (nil: not a plain property).
        let paths: [[FleecePath.Component]?]
        let values: [QueryValue]

        func value(at path: [FleecePath.Component]) -> QueryValue? {
            for (slot, candidate) in paths.enumerated() where candidate == path { return values[slot] }
            return nil
        }
    }

    /// Each comparison operator's test of an order, and the operator with its sides swapped
    /// (made once, not per term and run).
    private static let tests: [String: @Sendable (Int) -> Bool] = ["=": { $0 == 0 }, "==": { $0 == 0 }, "<": { $0 < 0 },
                                                                   "<=": { $0 <= 0 }, ">": { $0 > 0 }, ">=": { $0 >= 0 }]
    private static let flipped = ["=": "=", "==": "==", "<": ">", "<=": ">=", ">": "<", ">=": "<="]

    /// The operators that read a number only as a number (an integer and the same double
    /// compare equal, below 2^53).
    private static let comparisons: Set<String> = ["=", "==", "!=", "<>", "<", "<=", ">", ">=", "BETWEEN", "IN", "NOT IN"]

    /// A WHERE term comparing an index property with a constant: decided on the entry's value
    /// when both have the same type (as the evaluator decides it then), else left to the WHERE.
    private struct Term {
        let slot: Int
        /// The term's truth for the slot's value; nil when only the evaluator can tell.
        let test: (QueryValue) -> Bool?
    }

    /// A quick term tested on an entry's encoded value, without decoding it: the key encoding
    /// orders values of one type as ``QueryValue/compare(_:_:)`` orders them.
    private struct EncodedTerm {
        enum Test {
            /// The encoded value's order against this encoded constant (of the same type byte).
            case order(constant: [UInt8], holds: Holds)
            /// A LIKE prefix, lowercased ASCII.
            case likePrefix([UInt8])
        }

        /// Which orders of the value against the constant make the term true.
        struct Holds {
            let whenLess: Bool, whenEqual: Bool, whenGreater: Bool

            init(_ test: (Int) -> Bool) {
                (whenLess, whenEqual, whenGreater) = (test(-1), test(0), test(1))
            }

            func callAsFunction(_ order: Int32) -> Bool {
                order < 0 ? whenLess : (order == 0 ? whenEqual : whenGreater)
            }
        }

        let slot: Int
        let test: Test
    }

    /// What the quick terms say about an entry.
    enum Verdict {
        case fails, passes, undecided
    }

    private let paths: [[FleecePath.Component]?]
    /// The index expressions the query reads.
    private var read: [Bool]
    /// Those it reads outside a comparison: their numbers must keep their type.
    private var typed: [Bool]
    /// Whether anything after WHERE (columns, grouping, ordering) reads an index property: then
    /// a passing row keeps its entry's values.
    private var valuesOutliveWhere = false
    /// WHERE's ANDed terms that compare an index property with a constant.
    private var terms: [Term] = []
    /// Those of them that can be tested on the encoded key.
    private var encodedTerms: [EncodedTerm] = []
    /// The highest slot an encoded term reads.
    private var lastEncodedSlot = -1
    /// Whether those are all of WHERE (then they decide it alone).
    private var termsAreWhere = false

    /// Whether `index`'s entries can answer `query` (one source, reading only `._id` and the
    /// index's properties); nil when its documents must be read.
    init?(_ query: CompiledQuery, index: ValueIndex, evaluator: QueryEvaluator) {
        guard query.joins.isEmpty, !query.testsDeletion, !query.readsRevisionID else { return nil }
        paths = index.expressions.map { expression in
            if case .property(nil, let path) = expression, !path.isEmpty { return path }
            return nil
        }
        guard paths.contains(where: { $0 != nil }) else { return nil }
        read = Array(repeating: false, count: paths.count)
        typed = read
        let afterWhere = query.columns.map(\.expression) + query.groupBy + query.orderBy.map(\.expression)
            + [query.having].compactMap { $0 }
        for expression in afterWhere {
            guard note(expression, inComparison: false) else { return nil }
        }
        valuesOutliveWhere = read.contains(true)
        if let whereClause = query.whereClause, !note(whereClause, inComparison: false) { return nil }
        if let whereClause = query.whereClause {
            let conjuncts = whereClause.conjuncts
            var covered = 0
            for conjunct in conjuncts {
                guard let found = quickTerms(conjunct, evaluator) else { continue }
                terms += found.map(\.term)
                encodedTerms += found.compactMap(\.encoded)
                covered += 1
            }
            lastEncodedSlot = encodedTerms.map(\.slot).max() ?? -1
            termsAreWhere = covered == conjuncts.count
        } else {
            termsAreWhere = true
        }
    }

    /// `term` as quick terms: a comparison (`=`, `<`, `<=`, `>`, `>=`, BETWEEN) of an index
    /// property with constants that are strings, numbers or booleans.
    private func quickTerms(_ term: CompiledExpression, _ evaluator: QueryEvaluator) -> [(term: Term, encoded: EncodedTerm?)]? {
        guard case .call(let op, let operands) = term else { return nil }
        func slot(_ expression: CompiledExpression) -> Int? {
            guard case .property(nil, let path) = expression else { return nil }
            return paths.firstIndex { $0 == path }
        }
        func constant(_ expression: CompiledExpression) -> QueryValue? {
            // A parameter without a value makes no quick term; the WHERE reports it when it runs.
            let value: QueryValue?
            switch expression {
            case .literal(let literal): value = literal
            case .parameter(let name): value = evaluator.parameters[name]
            default: value = nil
            }
            return value.flatMap { $0.isScalarForQuickTerm ? $0 : nil }
        }
        // Same-type values compare as the evaluator compares them; other types are left to it.
        func comparing(_ slot: Int, _ constant: QueryValue, _ holds: @escaping @Sendable (Int) -> Bool) -> (term: Term, encoded: EncodedTerm?) {
            let term = Term(slot: slot) { value in
                value.typeRank == constant.typeRank ? holds(QueryValue.compare(value, constant)) : nil
            }
            return (term, constant.ordersByEncoding ? EncodedTerm(slot: slot, test: .order(constant: IndexKey.encode([constant]), holds: .init(holds))) : nil)
        }
        let tests = Self.tests, flipped = Self.flipped
        if op == "BETWEEN", operands.count == 3, let slot = slot(operands[0]),
           let low = constant(operands[1]), let high = constant(operands[2]) {
            return [comparing(slot, low, { $0 >= 0 }), comparing(slot, high, { $0 <= 0 })]
        }
        if op == "LIKE", operands.count == 2, let slot = slot(operands[0]),
           case .string(let pattern)? = constant(operands[1]), let prefix = LikePrefix(pattern) {
            // Anything but a string makes LIKE null or MISSING, which no WHERE keeps.
            return [(Term(slot: slot) { value in
                guard case .string(let text) = value else { return false }
                return prefix.matches(text)
            }, EncodedTerm(slot: slot, test: .likePrefix(prefix.bytes)))]
        }
        guard operands.count == 2, let test = tests[op] else { return nil }
        if let slot = slot(operands[0]), let value = constant(operands[1]) {
            return [comparing(slot, value, test)]
        }
        if let slot = slot(operands[1]), let value = constant(operands[0]), let reversed = flipped[op].flatMap({ tests[$0] }) {
            return [comparing(slot, value, reversed)]
        }
        return nil
    }

    /// The quick terms' verdict on an entry's values (``decode(_:into:)``): `.passes` only when
    /// they are all of WHERE.
    func verdict(_ values: [QueryValue]) -> Verdict {
        for term in terms {
            guard let holds = term.test(values[term.slot]) else { return .undecided }
            if !holds { return .fails }
        }
        return termsAreWhere ? .passes : .undecided
    }

    /// The verdict of the quick terms on entry `key` read as bytes, without decoding it: nil
    /// when the bytes cannot tell (a value of another type than a term's constant, null or
    /// MISSING, an array or object, a term with no encoded form), and then ``decode(_:into:)``
    /// and ``verdict(_:)`` must. `.passes` only when they are all of WHERE.
    func encodedVerdict(_ key: UnsafeRawBufferPointer) -> Verdict? {
        guard !encodedTerms.isEmpty, let base = key.baseAddress else { return nil }
        var position = 1   // after the entry tag
        for slot in 0...lastEncodedSlot {
            guard position < key.count else { return nil }
            var end: Int?
            for term in encodedTerms where term.slot == slot {
                switch term.test {
                case .order(let constant, let holds):
                    guard key[position] == constant[0] else { return nil }
                    // Encodings delimit themselves: bytes that start with the whole constant
                    // are the constant, and the first differing byte orders the two.
                    let length = min(constant.count, key.count - position)
                    var order = constant.withUnsafeBytes { bytes in bytes.baseAddress.map { memcmp(base + position, $0, length) } ?? 1 }
                    if order == 0 {
                        guard length == constant.count else { return nil }   // a key cut short
                        end = position + length
                    }
                    order = order < 0 ? -1 : (order > 0 ? 1 : 0)
                    if !holds(order) { return .fails }
                case .likePrefix(let prefix):
                    guard key[position] == 5, let matches = LikePrefix.matches(encodedString: key, at: position, prefix) else { return nil }
                    if !matches { return .fails }
                }
            }
            if slot < lastEncodedSlot {
                guard let next = end ?? IndexKey.endOfValue(in: key, at: position) else { return nil }
                position = next
            }
        }
        return termsAreWhere && encodedTerms.count == terms.count ? .passes : nil
    }

    /// Whether a passing row keeps its entry's values (something after WHERE reads them).
    var rowsKeepValues: Bool { valuesOutliveWhere }

    /// Records which index properties `expression` reads; false when it reads anything else.
    private mutating func note(_ expression: CompiledExpression, inComparison: Bool) -> Bool {
        switch expression {
        case .literal, .parameter:
            return true
        case .property(nil, let path):
            guard let slot = paths.firstIndex(where: { $0 == path }) else { return false }
            read[slot] = true
            if !inComparison { typed[slot] = true }
            return true
        case .meta(nil, "_id"):
            return true
        case .call(let name, let operands):
            guard name != "MATCH()", name != "RANK()", name != "MATCH_OFFSETS()" else { return false }
            let comparing = Self.comparisons.contains(name)
            for operand in operands where !note(operand, inComparison: comparing) { return false }
            return true
        case .collate(_, _, let inner):
            return note(inner, inComparison: false)
        default:
            return false   // other metadata, variables, ANY/EVERY, another source
        }
    }

    /// Values with a slot for each index expression, for ``decode(_:into:)`` to fill.
    var emptyValues: [QueryValue] { [QueryValue](repeating: .missing, count: paths.count) }

    /// Puts the values of the expressions the query reads from entry `key` into `values`
    /// (reused from entry to entry: no allocation per entry); false when one of them is not
    /// told exactly by the key, and the entry's document must be read.
    func decode(_ key: UnsafeRawBufferPointer, into values: inout [QueryValue]) -> Bool {
        var known = true
        IndexKey.decodeEach(key, from: 1, count: paths.count) { slot, decoded in
            guard read[slot] else { return true }
            switch decoded {
            case .exact(let value): values[slot] = value
            case .number(let number) where !typed[slot] && number.magnitude < 9_007_199_254_740_992:
                values[slot] = .double(number)
            default:
                known = false
            }
            return known
        }
        return known
    }

    /// The row of document `id` whose entry gave `values`: holding them when the WHERE's
    /// evaluator or an expression after it reads them.
    func row(id: String, values: [QueryValue], forWhere: Bool) -> QueryRow {
        QueryRow(id: id, sequence: 0, isDeleted: false, expiration: nil,
                 indexValues: forWhere || valuesOutliveWhere ? Values(paths: paths, values: values) : nil)
    }
}

private extension QueryValue {
    /// A value whose key encoding orders it against every encoded value of its type as
    /// ``QueryValue/compare(_:_:)`` does: a string, a boolean, or a number below 2^53 (a key
    /// keeps numbers as doubles; an integer past 2^53 that rounds to one is still on the same
    /// side of a constant below it).
    var ordersByEncoding: Bool {
        switch self {
        case .string, .bool: true
        case .int(let number): number.magnitude < 1 << 53
        case .double(let number): number.isFinite && number.magnitude < 9_007_199_254_740_992
        default: false
        }
    }

    /// A string, number or boolean: the types whose comparisons a quick term makes as the
    /// evaluator does.
    var isScalarForQuickTerm: Bool {
        switch self {
        case .string, .int, .double, .bool: true
        default: false
        }
    }
}

/// A LIKE pattern that is printable ASCII text then one `%`: the strings that start with that
/// text, compared as ``QueryFunctions/like(_:_:)`` compares (case-insensitively, by characters).
private struct LikePrefix {
    private let characters: [Character]
    /// The text, ASCII letters lowercased.
    let bytes: [UInt8]

    init?(_ pattern: String) {
        let utf8 = Array(pattern.utf8)
        guard utf8.last == UInt8(ascii: "%"), utf8.count > 1 else { return nil }
        let text = utf8.dropLast()
        guard text.allSatisfy({ (0x20...0x7E).contains($0) && $0 != UInt8(ascii: "%") && $0 != UInt8(ascii: "_")
                                && $0 != UInt8(ascii: "\\") }) else { return nil }
        bytes = text.map { (0x41...0x5A).contains($0) ? $0 + 0x20 : $0 }
        characters = Array(String(decoding: bytes, as: UTF8.self))
    }

    /// Whether an encoded string (type byte, then its escaped UTF-8 and 0x00 0x00) starts with
    /// the lowercased ASCII `prefix` as ``matches(_:)`` tells; nil when a byte it reads is not
    /// ASCII, or the byte after the prefix is not (it could join the prefix's last character).
    static func matches(encodedString key: UnsafeRawBufferPointer, at position: Int, _ prefix: [UInt8]) -> Bool? {
        // A 0x00 in the text (escaped as 0x00 0xFF) or its end (0x00 0x00) differs from every
        // byte of a printable prefix, so the escape needs no reading.
        guard position + 1 + prefix.count < key.count else { return nil }
        for (offset, wanted) in prefix.enumerated() {
            let byte = key[position + 1 + offset]
            guard byte < 0x80 else { return nil }
            if ((0x41...0x5A).contains(byte) ? byte + 0x20 : byte) != wanted { return false }
        }
        return key[position + 1 + prefix.count] < 0x80 ? true : nil
    }

    func matches(_ text: String) -> Bool {
        let utf8 = text.utf8
        // All ASCII: one byte per character (CR LF, the one pair that is one character, cannot
        // fall inside the printable prefix), and lowercasing is per byte.
        if utf8.allSatisfy({ $0 < 0x80 }) {
            guard utf8.count >= bytes.count else { return false }
            return zip(utf8, bytes).allSatisfy { text, wanted in ((0x41...0x5A).contains(text) ? text + 0x20 : text) == wanted }
        }
        return Array(text.lowercased()).starts(with: characters)
    }
}
