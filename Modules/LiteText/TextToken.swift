/// One word of a text as a full-text index stores it.
package struct TextToken: Sendable, Equatable {
    /// The normalised term: case-folded, optionally without diacritics, stemmed.
    package let term: String
    /// The word's number in the text (0, 1, 2, …), for phrases and NEAR.
    package let position: Int
    /// Where the word is in the text, in UTF-8 bytes (for match offsets, as FTS4 reports them).
    package let byteRange: Range<Int>

    /// Makes a token.
    package init(term: String, position: Int, byteRange: Range<Int>) {
        self.term = term
        self.position = position
        self.byteRange = byteRange
    }
}
