/// A document a full-text search found.
package struct FullTextHit: Sendable, Equatable {
    /// One matched word: which indexed property (by index in the definition) and where in its
    /// text, in UTF-8 bytes.
    package struct Offset: Sendable, Equatable, Hashable {
        /// The property's index in the definition.
        package let column: Int
        /// The word's bytes in that property's text.
        package let byteRange: Range<Int>
    }

    /// The document.
    package let documentID: String
    /// Its BM25 score: more matches, of rarer terms, in shorter text rank higher. (Set by the
    /// search once it knows every term's document count.)
    package internal(set) var rank: Double
    /// Every matched word, in column then text order (for highlighting).
    package let offsets: [Offset]
}
