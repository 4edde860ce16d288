/// The options of Couchbase Lite's FTS4 tokenizer (`unicodesn`) as a table declares them —
/// `tokenize=unicodesn "stopwords=en" "stemmer=en" "remove_diacritics=0"` — read as this
/// module's text analysis.
///
/// What the arguments mean (read from LiteCore 2.8's `fts3_unicodesn.c` and
/// `SQLiteKeyStore+FTSIndexes.cc`): `stemmer=<language>` stems; `stopwords=<language>` leaves
/// out that language's stop words (LiteCore has lists for English and French only; other
/// languages leave none out); `stopwordlist=<words>` leaves out the given words;
/// `remove_diacritics=0` keeps accents, and accents are folded unless it says so.
package struct LiteCoreTokenizerOptions: Sendable, Equatable {
    /// The language (stemmer or stop words), if any.
    package var language: String?
    /// Whether words are stemmed.
    package var stemming = false
    /// Whether accents are folded (`remove_diacritics=1`, the default).
    package var ignoresDiacritics = true
    /// The stop words; empty for none.
    package var stopWords: [String] = []

    /// The languages whose stop words LiteCore's tokenizer knows.
    private static let stopWordLanguages: Set<StemmingLanguage> = [.english, .french]

    /// Reads a table's tokenizer arguments (without quotes).
    package init(arguments: [String]) {
        for argument in arguments {
            if argument == "remove_diacritics=0" {
                ignoresDiacritics = false
            } else if argument == "remove_diacritics=1" {
                ignoresDiacritics = true
            } else if argument.hasPrefix("stemmer=") {
                language = String(argument.dropFirst(8))
                stemming = true
            } else if argument.hasPrefix("stopwords="), stopWords.isEmpty {
                let code = String(argument.dropFirst(10))
                if language == nil { language = code }
                if let known = StemmingLanguage(code: code), Self.stopWordLanguages.contains(known) {
                    stopWords = StopWords.list(for: known)
                }
            } else if argument.hasPrefix("stopwordlist="), stopWords.isEmpty {
                stopWords = TextTokenizer.words(in: String(argument.dropFirst(13))).map(\.0)
            }
        }
    }

    /// The tokenizer arguments in a `CREATE VIRTUAL TABLE … USING fts4(…, tokenize=unicodesn …)`
    /// statement; nil when it does not use `unicodesn`.
    package static func arguments(inTableSQL sql: String) -> [String]? {
        guard let range = sql.firstRange(of: "tokenize=unicodesn") else { return nil }
        var arguments: [String] = []
        var rest = sql[range.upperBound...]
        while let open = rest.firstIndex(where: { $0 == "\"" || $0 == "'" }) {
            let quote = rest[open]
            guard let close = rest[rest.index(after: open)...].firstIndex(of: quote) else { break }
            arguments.append(String(rest[rest.index(after: open)..<close]))
            rest = rest[rest.index(after: close)...]
        }
        return arguments
    }

    /// The tokenizer these options describe.
    ///
    /// - Throws: ``TextAnalysisError`` for a stemmer language libstemmer does not have.
    package func makeTokenizer() throws -> TextTokenizer {
        var stemmingLanguage: StemmingLanguage?
        if stemming, let language {
            guard let known = StemmingLanguage(code: language) else {
                throw TextAnalysisError("Couchbase Lite full-text table: no stemmer for language \"\(language)\"")
            }
            stemmingLanguage = known
        }
        return try TextTokenizer(language: stemmingLanguage, ignoresDiacritics: ignoresDiacritics,
                                 stemming: stemming, stopWords: stopWords)
    }
}
