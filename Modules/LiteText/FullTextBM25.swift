import FoundationEssentials
import Glibc

/// Okapi BM25 (k1 = 1.2, b = 0.75) over an index's totals.
///
/// A term's score in a document is the product ``inverseDocumentFrequency(_:)`` ×
/// ``termWeight(count:length:)``: the first depends only on how many documents hold the term,
/// the second only on the document. Every search path computes that same product, so a
/// single-term search, which learns the term's document count only after reading its
/// postings, gives exactly the ranks of the general path.
struct FullTextBM25 {
    private static let k1 = 1.2, b = 0.75
    private let documents: Double
    /// k1 × (1 − b) and k1 × b / average length: the length normalisation is then one
    /// multiply-add, and a document's weight one division (the divisions were most of a
    /// single-term search's own time).
    private let fixedNormalisation: Double
    private let normalisationPerWord: Double

    init(documentCount: Int, totalWords: Int) {
        documents = Double(max(documentCount, 1))
        let averageLength = max(Double(totalWords) / documents, 1)
        fixedNormalisation = Self.k1 * (1 - Self.b)
        normalisationPerWord = Self.k1 * Self.b / averageLength
    }

    /// How much a term counts for being rare: `frequency` documents hold it.
    func inverseDocumentFrequency(_ frequency: Int) -> Double {
        let frequency = Double(frequency)
        return log((documents - frequency + 0.5) / (frequency + 0.5) + 1)
    }

    /// How much `count` occurrences count in a document of `length` indexed words (more with
    /// diminishing returns, less in a longer document).
    func termWeight(count: Int, length: Int) -> Double {
        let tf = Double(count)
        return tf * (Self.k1 + 1) / (tf + fixedNormalisation + normalisationPerWord * Double(length))
    }

    /// The term's score: `count` occurrences in a document of `length` words, `frequency`
    /// documents holding it.
    func score(count: Int, length: Int, frequency: Int) -> Double {
        inverseDocumentFrequency(frequency) * termWeight(count: count, length: length)
    }
}
