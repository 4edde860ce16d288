/// Recursive descent over the lexer's tokens (precedence: NEAR > NOT > AND > OR).
struct MatchParser {
    private let tokens: [MatchLexer.Token]
    private let tokenizer: TextTokenizer
    private let length: Int
    private var index = 0
    /// How many parentheses the parse is inside.
    private var depth = 0
    /// Deeper parentheses are refused: each level recurses, and an unbounded nesting crashed
    /// the process by exhausting the stack (found by fuzzing).
    static let maximumNesting = 100

    /// The deepest operator tree accepted (operators between terms, once runs of AND and OR are
    /// balanced): SQLite's FTS4 limit, so 2.8 refuses the same expressions (a chain of thirteen
    /// NOT or NEAR, an AND of more than about 4,000 terms). It also keeps the evaluation, which
    /// recurses, shallow.
    static let maximumDepth = 12

    init(tokens: [MatchLexer.Token], tokenizer: TextTokenizer, length: Int) {
        self.tokens = tokens
        self.tokenizer = tokenizer
        self.length = length
    }

    private var current: MatchLexer.Token? { index < tokens.count ? tokens[index] : nil }
    private var position: Int { current?.position ?? length }

    mutating func parseAll() throws -> MatchExpression? {
        // Only stop words (or `*`, `:` and the like): nothing to look for.
        guard !tokens.isEmpty else { return nil }
        // Checked before anything is built: a run of more terms is refused whatever its shape.
        let terms = tokens.count(where: { if case .term = $0.kind { true } else if case .phrase = $0.kind { true } else { false } })
        guard terms <= 1 << Self.maximumDepth else { throw Self.tooLarge() }
        let result = try parseOr()
        if let extra = current {
            throw TextAnalysisError(extra.kind == .closeParenthesis ? "unbalanced \")\"" : "unexpected text",
                                    position: extra.position)
        }
        if let result, result.depth > Self.maximumDepth { throw Self.tooLarge() }
        return result
    }

    private static func tooLarge() -> TextAnalysisError {
        TextAnalysisError("the match expression is too large: its operators nest more than \(maximumDepth) deep "
                          + "(the limit of SQLite's FTS4, which Couchbase Lite 2.8 uses)", position: 0)
    }

    private mutating func parseOr() throws -> MatchExpression? {
        var operands = try parseAnd().map { [$0] } ?? []
        while current?.kind == .or {
            index += 1
            if let right = try parseAnd() { operands.append(right) }
        }
        return Self.balanced(operands[...], MatchExpression.or)
    }

    private mutating func parseAnd() throws -> MatchExpression? {
        var operands = try parseNot().map { [$0] } ?? []
        while let token = current {
            if token.kind == .and {
                index += 1
            } else if !Self.startsOperand(token.kind) {
                break
            }
            if let right = try parseNot() { operands.append(right) }
        }
        return Self.balanced(operands[...], MatchExpression.and)
    }

    /// A balanced tree of `operands` (SQLite balances runs of AND and OR the same way): its depth
    /// grows with the logarithm of their number.
    private static func balanced(_ operands: ArraySlice<MatchExpression>,
                                 _ make: (MatchExpression, MatchExpression) -> MatchExpression) -> MatchExpression? {
        switch operands.count {
        case 0: return nil
        case 1: return operands.first
        default:
            let middle = operands.startIndex + (operands.count + 1) / 2
            guard let left = balanced(operands[..<middle], make), let right = balanced(operands[middle...], make) else {
                return nil
            }
            return make(left, right)
        }
    }

    private mutating func parseNot() throws -> MatchExpression? {
        var left = try parseNear()
        while current?.kind == .not {
            let notPosition = position
            index += 1
            let right = try parseNear()
            guard let kept = left else {
                throw TextAnalysisError("NOT needs a term before it", position: notPosition)
            }
            // Only stop words in parentheses after NOT exclude nothing.
            left = right.map { .not(kept, $0) } ?? kept
        }
        return left
    }

    private mutating func parseNear() throws -> MatchExpression? {
        let first = try parsePrimary()
        var operands = first.map { [$0] } ?? []
        // FTS4 gives each NEAR of a chain its own distance: `a NEAR b NEAR/2 c` is a within 10
        // words of b and that b within 2 of c (the chain's smallest for both missed 2.8's hits).
        var distances: [Int] = []
        var pending = Int.max
        var validated = 0
        while case .near(let given)? = current?.kind {
            let nearPosition = position
            index += 1
            guard first != nil || !operands.isEmpty else {
                throw TextAnalysisError("NEAR needs a term before it", position: nearPosition)
            }
            // An operand that stands for nothing (`()`) joins its two NEARs into the smaller.
            pending = min(pending, given)
            if let next = try parsePrimary() {
                if !operands.isEmpty { distances.append(pending) }
                operands.append(next)
                pending = Int.max
            }
            // Each operand is checked once: checking all of them again after every NEAR made a
            // long chain quadratic (found by fuzzing: 3,000 NEARs took 0.6 s).
            for operand in operands[validated...] {
                switch operand {
                case .term, .phrase: continue
                default: throw TextAnalysisError("NEAR joins terms and phrases only", position: nearPosition)
                }
            }
            validated = operands.count
        }
        if operands.count > 1 { return .near(operands, distances: distances) }
        return operands.first
    }

    private mutating func parsePrimary() throws -> MatchExpression? {
        guard let token = current else {
            throw TextAnalysisError("a term is missing at the end", position: length)
        }
        switch token.kind {
        case .openParenthesis:
            guard depth < Self.maximumNesting else {
                throw TextAnalysisError("parentheses are nested more than \(Self.maximumNesting) levels deep",
                                        position: token.position)
            }
            index += 1
            // `()` (or parentheses around stop words only) stands for nothing, as in FTS4.
            if current?.kind == .closeParenthesis {
                index += 1
                return nil
            }
            depth += 1
            defer { depth -= 1 }
            let inner = try parseOr()
            guard current?.kind == .closeParenthesis else {
                throw TextAnalysisError("\"(\" is not closed", position: token.position)
            }
            index += 1
            return inner
        case .term(let text, let column, let prefix):
            index += 1
            return .term(MatchTerm(text: text, isPrefix: prefix, column: column))
        case .phrase(let text, let column):
            index += 1
            return terms(text, column: column)
        case .closeParenthesis:
            throw TextAnalysisError("unbalanced \")\"", position: token.position)
        case .and, .or, .not, .near:
            throw TextAnalysisError("an operator needs a term before it", position: token.position)
        }
    }

    /// The terms of a quoted phrase: each word analysed as indexed text, a prefix when `*`
    /// follows it inside the quotes (`"full te*"`), as FTS4 reads a phrase.
    private func terms(_ text: String, column: String?) -> MatchExpression {
        let words = TextTokenizer.words(in: text)
        let bytes = Array(text.utf8)
        var terms: [MatchTerm] = []
        var offset = 0   // the word's position in the phrase, counted as the index counts them
        for (word, range) in words {
            let prefix = range.upperBound < bytes.count && bytes[range.upperBound] == UInt8(ascii: "*")
            if let term = tokenizer.term(for: word, isPrefix: prefix) {
                terms.append(MatchTerm(text: term, isPrefix: prefix, column: column, offset: offset))
            } else if !tokenizer.stopWordsTakePositions {
                continue
            }
            offset += 1
        }
        // A quoted phrase of stop words only is FTS4's phrase of no tokens: it matches nothing,
        // so `"the most" AND pool` finds nothing and `pool OR "the"` finds `pool` (FTS-26).
        if terms.isEmpty { return .phrase([]) }
        if terms.count == 1 {
            let only = terms[0]
            return .term(MatchTerm(text: only.text, isPrefix: only.isPrefix, column: only.column))
        }
        return .phrase(terms)
    }

    private static func startsOperand(_ kind: MatchLexer.Kind) -> Bool {
        switch kind {
        case .openParenthesis, .term, .phrase: return true
        default: return false
        }
    }
}
