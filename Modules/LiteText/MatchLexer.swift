/// Splits a match expression into operators, parentheses, analysed terms and quoted phrases,
/// the way SQLite's FTS4 reads one with Couchbase Lite's `unicodesn` tokenizer:
///
/// - An operator (`AND`, `OR`, `NOT`, `NEAR`, `NEAR/n`, upper case) is one only where a term
///   could start, followed by a space, a parenthesis, a quote or the end.
/// - Elsewhere the text up to the next parenthesis or quote goes through the tokenizer, and its
///   first word that is not a stop word (a word `*` follows never is one) is the term; what
///   comes after that word is read again
///   from there. Stop words before it are skipped, and so are operators among them: with
///   English stop words `the NOT beach` is the term `beach` (`not` is a stop word), as in 2.8.
/// - A term is stemmed like indexed text, prefix terms too (`rooms*` looks for words starting
///   with the stem `room`); only the term's first word counts (`e-mail` is `e`, then `mail`).
enum MatchLexer {
    enum Kind: Equatable {
        case openParenthesis, closeParenthesis
        case and, or, not
        case near(Int)
        /// An analysed term, maybe `column:term` and maybe a prefix (`term*`).
        case term(String, column: String?, prefix: Bool)
        /// A quoted phrase, maybe `column:"…"`.
        case phrase(String, column: String?)
    }

    struct Token: Equatable {
        let kind: Kind
        /// Character offset in the expression.
        let position: Int
    }

    static func tokens(in text: String, tokenizer: TextTokenizer) throws -> [Token] {
        let characters = Array(text)
        var tokens: [Token] = []
        var index = 0
        func isSeparator(_ c: Character) -> Bool { c == "(" || c == ")" || c == "\"" }
        while true {
            while index < characters.count, characters[index].isWhitespace { index += 1 }
            guard index < characters.count else { break }
            let start = index
            let character = characters[index]
            if let (kind, length) = keyword(characters, at: index) {
                tokens.append(Token(kind: kind, position: start))
                index += length
            } else if character == "(" {
                tokens.append(Token(kind: .openParenthesis, position: start))
                index += 1
            } else if character == ")" {
                tokens.append(Token(kind: .closeParenthesis, position: start))
                index += 1
            } else if character == "\"" {
                tokens.append(try phrase(characters, from: index, column: nil, columnStart: start, index: &index))
            } else {
                var column: String?
                var end = index
                while end < characters.count, !characters[end].isWhitespace, !isSeparator(characters[end]),
                      characters[end] != ":" {
                    end += 1
                }
                if end > index, end < characters.count, characters[end] == ":" {
                    column = String(characters[index..<end])
                    index = end + 1
                    if index < characters.count, characters[index] == "\"" {
                        tokens.append(try phrase(characters, from: index, column: column, columnStart: start, index: &index))
                        continue
                    }
                }
                // The first kept word up to the next parenthesis or quote, one whitespace-separated
                // piece at a time (a word never spans whitespace), so the work stays linear.
                var found = false
                while !found, index < characters.count, !isSeparator(characters[index]) {
                    if characters[index].isWhitespace { index += 1; continue }
                    var pieceEnd = index
                    while pieceEnd < characters.count, !characters[pieceEnd].isWhitespace, !isSeparator(characters[pieceEnd]) {
                        pieceEnd += 1
                    }
                    let piece = String(characters[index..<pieceEnd])
                    for (word, bytes) in TextTokenizer.words(in: piece) {
                        let wordEnd = piece.utf8.index(piece.utf8.startIndex, offsetBy: bytes.upperBound)
                        var after = index + piece[..<wordEnd].count
                        let prefix = after < characters.count && characters[after] == "*"
                        guard let term = tokenizer.term(for: word, isPrefix: prefix) else { continue }
                        if prefix { after += 1 }
                        tokens.append(Token(kind: .term(term, column: column, prefix: prefix), position: start))
                        index = after
                        found = true
                        break
                    }
                    if !found { index = pieceEnd }
                }
            }
        }
        return tokens
    }

    /// The operator at `index` and its length, if one stands there.
    private static func keyword(_ characters: [Character], at index: Int) -> (Kind, Int)? {
        func word(_ text: String) -> Bool {
            let letters = Array(text)
            return index + letters.count <= characters.count && Array(characters[index..<index + letters.count]) == letters
        }
        var kind: Kind
        var length: Int
        if word("OR") {
            (kind, length) = (.or, 2)
        } else if word("AND") {
            (kind, length) = (.and, 3)
        } else if word("NOT") {
            (kind, length) = (.not, 3)
        } else if word("NEAR") {
            (kind, length) = (.near(MatchExpression.defaultNearDistance), 4)
            if index + 5 < characters.count, characters[index + 4] == "/", characters[index + 5].isASCII,
               characters[index + 5].isNumber {
                var distance = 0
                var end = index + 5
                while end < characters.count, characters[end].isASCII, let digit = characters[end].wholeNumberValue {
                    distance = min(Int(Int32.max), distance * 10 + digit)
                    end += 1
                }
                (kind, length) = (.near(distance), end - index)
            }
        } else {
            return nil
        }
        // Only an operator when what follows cannot continue a word ("ORacle" is a word).
        let next = index + length
        guard next == characters.count || characters[next].isWhitespace || characters[next] == "\""
                || characters[next] == "(" || characters[next] == ")" else { return nil }
        return (kind, length)
    }

    private static func phrase(_ characters: [Character], from quote: Int, column: String?, columnStart: Int,
                               index: inout Int) throws -> Token {
        var end = quote + 1
        while end < characters.count, characters[end] != "\"" { end += 1 }
        guard end < characters.count else {
            throw TextAnalysisError("the phrase has no closing quote", position: quote)
        }
        index = end + 1
        return Token(kind: .phrase(String(characters[(quote + 1)..<end]), column: column), position: columnStart)
    }
}
