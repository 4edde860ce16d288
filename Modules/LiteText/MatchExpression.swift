/// A parsed full-text match expression, in the syntax SQLite's FTS4 (which Couchbase Lite
/// uses) accepts: terms (implicit AND), `AND`, `OR`, `NOT`, parentheses, `"phrases"`,
/// `prefix*`, `NEAR` and `NEAR/n`, and `property:term` column filters. Operators are upper-case
/// only (a lower-case `or` is a term). Precedence, highest first: NEAR, NOT, AND, OR.
///
/// ```swift
/// let expression = try MatchExpression.parse("(sqlite OR database) NOT \"full text\"",
///                                            tokenizer: tokenizer)
/// ```
package indirect enum MatchExpression: Sendable, Equatable {
    /// One term.
    case term(MatchTerm)
    /// Terms that must appear one after another.
    case phrase([MatchTerm])
    /// Terms or phrases in a chain, each within its NEAR's distance (`distances[i]` words
    /// between operands i and i + 1) of the next, one occurrence of each linking its neighbours.
    case near([MatchExpression], distances: [Int])
    /// Both must match.
    case and(MatchExpression, MatchExpression)
    /// Either must match.
    case or(MatchExpression, MatchExpression)
    /// The first must match and the second must not.
    case not(MatchExpression, MatchExpression)

    /// NEAR's distance when the expression does not give one (as in SQLite).
    package static let defaultNearDistance = 10

    /// Parses `text`, normalising each word with `tokenizer` (so the same stemming and folding
    /// apply as when the text was indexed).
    ///
    /// - Returns: nil when nothing is left to look for (only stop words).
    /// - Throws: ``TextAnalysisError`` naming the position of a syntax error.
    package static func parse(_ text: String, tokenizer: TextTokenizer) throws -> MatchExpression? {
        guard text.contains(where: { !$0.isWhitespace }) else {
            throw TextAnalysisError("the match expression is empty", position: 0)
        }
        var parser = MatchParser(tokens: try MatchLexer.tokens(in: text, tokenizer: tokenizer), tokenizer: tokenizer,
                                 length: text.count)
        return try parser.parseAll()
    }

    /// How many operators deep the expression is (a term or phrase: 0; NEAR counts as a chain of
    /// binary operators, as FTS4 builds it).
    var depth: Int {
        // Iterative: the tree may be a long chain of NOT before the depth check refuses it.
        var deepest = 0
        var pending: [(MatchExpression, Int)] = [(self, 0)]
        while let (expression, level) = pending.popLast() {
            switch expression {
            case .term, .phrase: deepest = max(deepest, level)
            case .near(let operands, _): deepest = max(deepest, level + operands.count - 1)
            case .and(let left, let right), .or(let left, let right), .not(let left, let right):
                pending.append((left, level + 1))
                pending.append((right, level + 1))
            }
        }
        return deepest
    }
}

/// A term of a match expression, normalised.
package struct MatchTerm: Sendable, Equatable {
    /// The term as the index stores it.
    package let text: String
    /// `term*`: any indexed term starting with `text`.
    package let isPrefix: Bool
    /// The property it must appear in (`name:term`), if any.
    package let column: String?
    /// Its word number in the typed phrase (stop words left out of the phrase still count, as
    /// they do in the indexed text).
    package let offset: Int

    /// Makes a term.
    package init(text: String, isPrefix: Bool = false, column: String? = nil, offset: Int = 0) {
        self.text = text
        self.isPrefix = isPrefix
        self.column = column
        self.offset = offset
    }
}
