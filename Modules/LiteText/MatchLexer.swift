/// Splits a match expression into operators, parentheses, words and quoted phrases.
enum MatchLexer {
    enum Kind: Equatable {
        case openParenthesis, closeParenthesis
        case and, or, not
        case near(Int)
        /// A bare word, maybe `column:word` and maybe ending in `*`.
        case word(String, column: String?, prefix: Bool)
        /// A quoted phrase, maybe `column:"…"` and maybe followed by `*`.
        case phrase(String, column: String?, prefix: Bool)
    }

    struct Token: Equatable {
        let kind: Kind
        /// Character offset in the expression.
        let position: Int
    }

    static func tokens(in text: String) throws -> [Token] {
        let characters = Array(text)
        var tokens: [Token] = []
        var index = 0
        while index < characters.count {
            let character = characters[index]
            if character.isWhitespace {
                index += 1
            } else if character == "(" {
                tokens.append(Token(kind: .openParenthesis, position: index))
                index += 1
            } else if character == ")" {
                tokens.append(Token(kind: .closeParenthesis, position: index))
                index += 1
            } else if character == "\"" {
                tokens.append(try phrase(characters, from: index, column: nil, columnStart: index, index: &index))
            } else {
                let start = index
                // (Compared one by one: `contains` on a string literal walks its characters each time.)
                while index < characters.count, !characters[index].isWhitespace, characters[index] != "(",
                      characters[index] != ")", characters[index] != "\"" {
                    index += 1
                }
                var word = String(characters[start..<index])
                // `column:"phrase"`
                if word.last == ":", index < characters.count, characters[index] == "\"" {
                    let column = String(word.dropLast())
                    tokens.append(try phrase(characters, from: index, column: column, columnStart: start, index: &index))
                    continue
                }
                if let kind = operatorKind(word) {
                    tokens.append(Token(kind: kind, position: start))
                    continue
                }
                if word.starts(with: "NEAR/") {
                    throw TextAnalysisError("NEAR/ must be followed by a whole number of words, not \"\(word.dropFirst(5))\"",
                                            position: start)
                }
                var column: String?
                if let colon = word.firstIndex(of: ":"), colon != word.startIndex {
                    column = String(word[..<colon])
                    word = String(word[word.index(after: colon)...])
                }
                let prefix = word.last == "*"
                if prefix { word.removeLast() }
                guard !word.isEmpty else {
                    throw TextAnalysisError("a term is missing", position: start)
                }
                tokens.append(Token(kind: .word(word, column: column, prefix: prefix), position: start))
            }
        }
        return tokens
    }

    private static func operatorKind(_ word: String) -> Kind? {
        switch word {
        case "AND": return .and
        case "OR": return .or
        case "NOT": return .not
        case "NEAR": return .near(MatchExpression.defaultNearDistance)
        default:
            guard word.starts(with: "NEAR/"), let distance = Int(word.dropFirst(5)), distance >= 0 else { return nil }
            return .near(distance)
        }
    }

    private static func phrase(_ characters: [Character], from quote: Int, column: String?, columnStart: Int,
                               index: inout Int) throws -> Token {
        var end = quote + 1
        while end < characters.count, characters[end] != "\"" { end += 1 }
        guard end < characters.count else {
            throw TextAnalysisError("the phrase has no closing quote", position: quote)
        }
        let text = String(characters[(quote + 1)..<end])
        index = end + 1
        var prefix = false
        if index < characters.count, characters[index] == "*" {
            prefix = true
            index += 1
        }
        return Token(kind: .phrase(text, column: column, prefix: prefix), position: columnStart)
    }
}
