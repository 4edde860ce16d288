import FoundationEssentials
import LiteSupport

/// Splits text into the terms a full-text index stores and a match expression looks up.
///
/// - Words are maximal runs of letters, combining marks and digits (Unicode categories L, M,
///   N); everything else separates them. Han ideographs, Hiragana and Katakana, which are
///   written without spaces, are one-character tokens each (so a search for one character
///   finds it inside a run).
/// - Each word is case-folded (Unicode lowercase), optionally stripped of diacritics
///   (canonical decomposition, then nonspacing marks dropped), dropped when it is a stop word
///   of the language, and stemmed with the language's Snowball stemmer.
/// - No language: no stemming and no stop words.
///
/// ```swift
/// let tokenizer = try TextTokenizer(language: .english)
/// tokenizer.tokens(in: "The Running Dogs").map(\.term)   // ["run", "dog"]
/// ```
package struct TextTokenizer: Sendable {
    /// The language (stemming and stop words), if any.
    package let language: StemmingLanguage?
    /// Whether `é` and `e` are the same letter.
    package let ignoresDiacritics: Bool
    /// The stop words (already normalised); empty for none.
    package let stopWords: Set<String>
    /// Whether a stop word takes a word position (ours), or only kept words count (Couchbase
    /// Lite's `unicodesn`, for the indexes adopted from its files: FTS-20).
    package let stopWordsTakePositions: Bool
    private let stemmer: Stemmer?

    /// A tokenizer for `language` (nil: none).
    ///
    /// - Parameters:
    ///   - stemming: stem words (when the language has a stemmer).
    ///   - stopWords: the words to leave out; nil uses the language's list.
    ///   - stopWordsTakePositions: false to count only kept words' positions, as Couchbase Lite does.
    package init(language: StemmingLanguage?, ignoresDiacritics: Bool = false, stemming: Bool = true,
                 stopWords: [String]? = nil, stopWordsTakePositions: Bool = true) throws {
        self.language = language
        self.ignoresDiacritics = ignoresDiacritics
        self.stopWordsTakePositions = stopWordsTakePositions
        stemmer = try (stemming ? language : nil).map { try Stemmer(language: $0) }
        let words = stopWords ?? language.map { StopWords.list(for: $0) } ?? []
        self.stopWords = Set(words.map { Self.fold($0, ignoresDiacritics: ignoresDiacritics) })
    }

    /// The tokens of `text`, in order.
    package func tokens(in text: String) -> [TextToken] {
        var tokens: [TextToken] = []
        forEachToken(in: text) { tokens.append(TextToken(term: $0, position: $1, byteRange: $2)) }
        return tokens
    }

    /// Calls `body` with each token of `text` (term, word position, UTF-8 byte range), in order,
    /// without collecting them: indexing a huge text needs memory for its distinct terms only.
    package func forEachToken(in text: String, _ body: (String, Int, Range<Int>) throws -> Void) rethrows {
        var position = 0
        try Self.forEachWord(in: text) { word, range in
            let folded = Self.fold(word, ignoresDiacritics: ignoresDiacritics)
            if stopWords.contains(folded) {
                if stopWordsTakePositions { position += 1 }
                return
            }
            try body(stemmer?.stem(folded) ?? folded, position, range)
            position += 1
        }
    }

    /// The normalised form of one word typed in a match expression (nil for a stop word).
    /// A prefix (`the*`, `being*`) is never a stop word: 2.8's tokenizer keeps a word that `*`
    /// follows while a query runs, so `the*` finds `theater` (FTS-25).
    package func term(for word: String, isPrefix: Bool = false) -> String? {
        let folded = Self.fold(word, ignoresDiacritics: ignoresDiacritics)
        if !isPrefix, stopWords.contains(folded) { return nil }
        return stemmer?.stem(folded) ?? folded
    }

    /// Calls `body` with the term of a word that is already folded (lower-case ASCII, which
    /// folding leaves as it is), as bytes, or with nil for a stop word: what ``term(for:)``
    /// gives, without making Strings of the word and its stem. `knownNotStopWord`: the caller
    /// already knows the word is not a stop word (``FullTextTermTable`` holds them).
    func withTerm<Result>(ofFoldedWord word: UnsafeBufferPointer<UInt8>, knownNotStopWord: Bool = false,
                          _ body: (UnsafeBufferPointer<UInt8>?) throws -> Result) rethrows -> Result {
        if !knownNotStopWord, !stopWords.isEmpty, stopWords.contains(String(decoding: word, as: UTF8.self)) {
            return try body(nil)
        }
        guard let stemmer else { return try body(word) }
        return try stemmer.withStem(of: word, body)
    }

    /// Case folding, and diacritic removal when asked.
    static func fold(_ word: String, ignoresDiacritics: Bool) -> String {
        // Most words are lower-case ASCII already: nothing to fold, nothing to allocate.
        if word.utf8.allSatisfy({ $0 < 0x80 && !($0 >= 0x41 && $0 <= 0x5A) }) { return word }
        let lower = word.lowercased()
        guard ignoresDiacritics else { return lower }
        return lower.removingDiacritics()
    }

    /// The words of `text` with their UTF-8 byte ranges.
    static func words(in text: String) -> [(String, Range<Int>)] {
        var words: [(String, Range<Int>)] = []
        forEachWord(in: text) { words.append(($0, $1)) }
        return words
    }

    /// Calls `body` with each word of `text` and its UTF-8 byte range, in order.
    static func forEachWord(in text: String, _ body: (String, Range<Int>) throws -> Void) rethrows {
        var text = text
        try text.withUTF8 { bytes in
            try forEachWordRange(in: bytes) { range in
                try body(String(decoding: bytes[range], as: UTF8.self), range)
            }
        }
    }

    /// Calls `body` with the byte range of each word of the UTF-8 text `bytes`, in order.
    ///
    /// Works on the bytes: ASCII letters and digits are classified without a Unicode property
    /// lookup (most text is mostly ASCII, and the lookup dominated indexing). Malformed UTF-8
    /// (possible only in a damaged record) cannot read past the buffer; its bytes separate words.
    static func forEachWordRange(in bytes: UnsafeBufferPointer<UInt8>, _ body: (Range<Int>) throws -> Void) rethrows {
        var start = -1
        var offset = 0
        while offset < bytes.count {
            let byte = bytes[offset]
            if byte < 0x80 {
                let lower = byte | 0x20
                if (byte >= 0x30 && byte <= 0x39) || (lower >= 0x61 && lower <= 0x7A) {
                    if start < 0 { start = offset }
                } else if start >= 0 {
                    try body(start..<offset)
                    start = -1
                }
                offset += 1
                continue
            }
            // In valid UTF-8 the lead byte gives the width.
            let width = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : 2
            var value = UInt32(byte) & (width == 2 ? 0x1F : width == 3 ? 0x0F : 0x07)
            for index in 1..<width where offset + index < bytes.count {
                value = value << 6 | (UInt32(bytes[offset + index]) & 0x3F)
            }
            let end = min(offset + width, bytes.count)
            if let scalar = Unicode.Scalar(value), isSingleCharacterWord(scalar) {
                if start >= 0 { try body(start..<offset) }
                start = -1
                try body(offset..<end)
            } else if let scalar = Unicode.Scalar(value), isWordCharacter(scalar) {
                if start < 0 { start = offset }
            } else if start >= 0 {
                try body(start..<offset)
                start = -1
            }
            offset = end
        }
        if start >= 0 { try body(start..<bytes.count) }
    }

    private static func isWordCharacter(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
             .nonspacingMark, .spacingMark, .enclosingMark, .decimalNumber, .letterNumber, .otherNumber:
            return true
        default:
            return false
        }
    }

    /// Scripts written without spaces between words.
    private static func isSingleCharacterWord(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x3040...0x30FF,           // Hiragana, Katakana
             0x3400...0x4DBF,           // CJK Extension A
             0x4E00...0x9FFF,           // CJK Unified Ideographs
             0xF900...0xFAFF,           // CJK Compatibility Ideographs
             0x20000...0x2FFFF:         // CJK Extensions B–F
            return true
        default:
            return false
        }
    }
}
