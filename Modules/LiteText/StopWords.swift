/// Stop words: words too common to index, per language — Snowball's published lists (the words
/// those stemmers' authors recommend leaving out), and for Turkish, which Snowball has no list
/// for, Apache Lucene's. The lists themselves are in `StopWords+Lists.swift`.
enum StopWords {
    static func list(for language: StemmingLanguage) -> [String] {
        switch language {
        case .danish: danish
        case .dutch: dutch
        case .english: english
        case .finnish: finnish
        case .french: french
        case .german: german
        case .hungarian: hungarian
        case .italian: italian
        case .norwegian: norwegian
        case .portuguese: portuguese
        case .romanian: romanian
        case .russian: russian
        case .spanish: spanish
        case .swedish: swedish
        case .turkish: turkish
        }
    }

    /// The words of a space-separated list.
    static func words(_ list: String) -> [String] {
        list.split(whereSeparator: \.isWhitespace).map(String.init)
    }
}
