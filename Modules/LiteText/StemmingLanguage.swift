/// The languages full-text indexes stem, as the Couchbase Lite guide lists them: each has a
/// Snowball stemmer (Debian's libstemmer) and a stop-word list.
package enum StemmingLanguage: String, Sendable, CaseIterable {
    case danish, dutch, english, finnish, french, german, hungarian, italian, norwegian, portuguese,
         romanian, russian, spanish, swedish, turkish

    /// The language for a name or code: `"english"`, `"en"`, `"en_US"`, `"fr-CA"` (the part
    /// before `_` or `-` counts, as in Couchbase Lite); nil for a language with no stemmer.
    package init?(code: String) {
        let base = code.lowercased().split(whereSeparator: { $0 == "_" || $0 == "-" }).first.map(String.init) ?? ""
        if let language = StemmingLanguage(rawValue: base) {
            self = language
            return
        }
        guard let language = Self.isoCodes[base] else { return nil }
        self = language
    }

    /// ISO 639-1 codes.
    private static let isoCodes: [String: StemmingLanguage] = [
        "da": .danish, "nl": .dutch, "en": .english, "fi": .finnish, "fr": .french, "de": .german,
        "hu": .hungarian, "it": .italian, "no": .norwegian, "nb": .norwegian, "nn": .norwegian,
        "pt": .portuguese, "ro": .romanian, "ru": .russian, "es": .spanish, "sv": .swedish, "tr": .turkish,
    ]

    /// The ISO 639-1 code.
    package var code: String {
        Self.isoCodes.first { $0.value == self && $0.key != "nb" && $0.key != "nn" }?.key ?? rawValue
    }
}
