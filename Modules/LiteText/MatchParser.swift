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

    init(tokens: [MatchLexer.Token], tokenizer: TextTokenizer, length: Int) {
        self.tokens = tokens
        self.tokenizer = tokenizer
        self.length = length
    }

    private var current: MatchLexer.Token? { index < tokens.count ? tokens[index] : nil }
    private var position: Int { current?.position ?? length }

    mutating func parseAll() throws -> MatchExpression? {
        guard !tokens.isEmpty else { throw TextAnalysisError("the match expression is empty", position: 0) }
        let result = try parseOr()
        if let extra = current {
            throw TextAnalysisError(extra.kind == .closeParenthesis ? "unbalanced \")\"" : "unexpected text",
                                    position: extra.position)
        }
        return result
    }

    private mutating func parseOr() throws -> MatchExpression? {
        var left = try parseAnd()
        while current?.kind == .or {
            index += 1
            let right = try parseAnd()
            left = Self.combine(left, right, MatchExpression.or)
        }
        return left
    }

    private mutating func parseAnd() throws -> MatchExpression? {
        var left = try parseNot()
        while let token = current {
            if token.kind == .and {
                index += 1
            } else if !Self.startsOperand(token.kind) {
                break
            }
            let right = try parseNot()
            left = Self.combine(left, right, MatchExpression.and)
        }
        return left
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
            // A stop word after NOT excludes nothing.
            left = right.map { .not(kept, $0) } ?? kept
        }
        return left
    }

    private mutating func parseNear() throws -> MatchExpression? {
        let first = try parsePrimary()
        var operands = first.map { [$0] } ?? []
        var distance = Int.max
        var validated = 0
        while case .near(let given)? = current?.kind {
            let nearPosition = position
            index += 1
            guard first != nil || !operands.isEmpty else {
                throw TextAnalysisError("NEAR needs a term before it", position: nearPosition)
            }
            if let next = try parsePrimary() { operands.append(next) }
            distance = min(distance, given)
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
        if operands.count > 1 { return .near(operands, distance: distance) }
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
            depth += 1
            defer { depth -= 1 }
            let inner = try parseOr()
            guard current?.kind == .closeParenthesis else {
                throw TextAnalysisError("\"(\" is not closed", position: token.position)
            }
            index += 1
            return inner
        case .word(let word, let column, let prefix):
            index += 1
            return terms(word, column: column, prefix: prefix)
        case .phrase(let text, let column, let prefix):
            index += 1
            return terms(text, column: column, prefix: prefix)
        case .closeParenthesis:
            throw TextAnalysisError("unbalanced \")\"", position: token.position)
        case .and, .or, .not, .near:
            throw TextAnalysisError("an operator needs a term before it", position: token.position)
        }
    }

    /// A typed word can be several indexed words (`don't`, `e-mail`): then it is a phrase.
    private func terms(_ text: String, column: String?, prefix: Bool) -> MatchExpression? {
        let words = TextTokenizer.words(in: text).map(\.0)
        var terms: [MatchTerm] = []
        var offset = 0   // the word's position in the phrase, counted as the index counts them
        for (index, word) in words.enumerated() {
            let isLast = index == words.count - 1
            // A prefix is matched unstemmed: the stem of a partial word is not a prefix of anything.
            if prefix && isLast {
                terms.append(MatchTerm(text: TextTokenizer.fold(word, ignoresDiacritics: tokenizer.ignoresDiacritics),
                                       isPrefix: true, column: column, offset: offset))
            } else if let term = tokenizer.term(for: word) {
                terms.append(MatchTerm(text: term, column: column, offset: offset))
            } else if !tokenizer.stopWordsTakePositions {
                continue
            }
            offset += 1
        }
        if terms.isEmpty { return nil }
        if terms.count == 1 {
            let only = terms[0]
            return .term(MatchTerm(text: only.text, isPrefix: only.isPrefix, column: only.column))
        }
        return .phrase(terms)
    }

    private static func startsOperand(_ kind: MatchLexer.Kind) -> Bool {
        switch kind {
        case .openParenthesis, .word, .phrase: return true
        default: return false
        }
    }

    private static func combine(_ left: MatchExpression?, _ right: MatchExpression?,
                                _ make: (MatchExpression, MatchExpression) -> MatchExpression) -> MatchExpression? {
        switch (left, right) {
        case (let left?, let right?): return make(left, right)
        case (let only?, nil), (nil, let only?): return only
        case (nil, nil): return nil
        }
    }
}
