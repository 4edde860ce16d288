import FoundationEssentials
import LiteSupport

/// What a full-text index indexes and how: its properties (key paths) and text analysis.
///
/// Stored in the index's own store as JSON, so the index rebuilds itself the same way after a
/// reopen or an engine conversion.
package struct FullTextIndexDefinition: Sendable, Equatable, Codable {
    /// The index's name (what `MATCH(name, …)` and `RANK(name)` refer to).
    package var name: String
    /// The indexed properties, as key paths (`"description"`, `"address.city"`).
    package var properties: [String]
    /// The language (ISO code or name) for stemming and stop words; nil: neither.
    package var language: String?
    /// Whether `é` matches `e`.
    package var ignoresDiacritics: Bool
    /// Whether words are stemmed (when the language has a stemmer).
    package var stemming: Bool
    /// Stop words replacing the language's list; nil uses the language's list.
    package var stopWords: [String]?
    /// False for an index adopted from Couchbase Lite: only kept words take positions, as in
    /// its FTS4 table, so phrases and NEAR answer as it does. Nil (definitions stored before
    /// this existed) and true: stop words take positions.
    package var stopWordsTakePositions: Bool?

    /// Makes a definition.
    package init(name: String, properties: [String], language: String? = nil, ignoresDiacritics: Bool = false,
                 stemming: Bool = true, stopWords: [String]? = nil, stopWordsTakePositions: Bool? = nil) {
        self.name = name
        self.properties = properties
        self.language = language
        self.ignoresDiacritics = ignoresDiacritics
        self.stemming = stemming
        self.stopWords = stopWords
        self.stopWordsTakePositions = stopWordsTakePositions
    }

    /// Whether an index with this definition answers a request to create `requested`: the same
    /// definition, where a request that does not say how stop words count accepts either (so an
    /// app that creates its index at every launch keeps the one adopted from Couchbase Lite).
    package func satisfies(_ requested: FullTextIndexDefinition) -> Bool {
        var mine = self
        if requested.stopWordsTakePositions == nil { mine.stopWordsTakePositions = nil }
        return mine == requested
    }

    /// The tokenizer this definition describes.
    ///
    /// - Throws: ``TextAnalysisError`` for a language with no stemmer when stemming is asked.
    package func makeTokenizer() throws -> TextTokenizer {
        var stemmingLanguage: StemmingLanguage?
        if let language, !language.isEmpty {
            guard let known = StemmingLanguage(code: language) else {
                throw TextAnalysisError("full-text index \"\(name)\": no stemmer or stop words for language "
                                        + "\"\(language)\"; use one of "
                                        + StemmingLanguage.allCases.map(\.code).joined(separator: ", ")
                                        + ", or none")
            }
            stemmingLanguage = known
        }
        return try TextTokenizer(language: stemmingLanguage, ignoresDiacritics: ignoresDiacritics,
                                 stemming: stemming, stopWords: stopWords,
                                 stopWordsTakePositions: stopWordsTakePositions ?? true)
    }

    /// The name of the byte-key store holding the index (`fts:` and the name, percent-encoded
    /// where a store name cannot hold a character).
    package var storeName: String {
        name.storeName(prefix: "fts:")
    }
}
