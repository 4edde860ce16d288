import Foundation
import LiteStorage

/// Evaluates a match expression against one index's postings and ranks the documents.
///
/// Ranking is Okapi BM25 (k1 = 1.2, b = 0.75) over the matched terms: a term counts more the
/// rarer it is among the indexed documents, and more occurrences count with diminishing
/// returns, normalised by the document's indexed length. (Couchbase Lite 2.8 ranks with FTS4's
/// matchinfo sums; BM25 orders the same way where one document simply has more and rarer
/// matches, and is the better-studied choice — see docs/decisions.md.)
struct FullTextSearch {
    struct Hit: Equatable {
        let term: String
        let column: Int
        /// The word's position; -1 for a hit that stands for `count` occurrences not decoded
        /// (a plain term when no offsets are wanted).
        let position: Int
        let byteRange: Range<Int>
        var count = 1
    }

    /// Document ID → the words that made it match.
    typealias Matches = [String: [Hit]]

    let store: any ByteKeyStore
    let columns: [String]
    /// How many documents contain each looked-up term.
    private(set) var documentFrequency: [String: Int] = [:]
    /// The indexed length (words) of each document met in a posting.
    private(set) var documentLengths: [String: Int] = [:]

    /// Whether hits of plain terms carry their offsets (phrases and NEAR always decode them).
    let wantsOffsets: Bool

    init(store: any ByteKeyStore, columns: [String], wantsOffsets: Bool = true) {
        self.store = store
        self.columns = columns
        self.wantsOffsets = wantsOffsets
    }

    mutating func evaluate(_ expression: MatchExpression) throws -> Matches {
        switch expression {
        case .term(let term):
            return try postings(term, decodingOccurrences: wantsOffsets)
        case .phrase(let terms):
            return try phrase(terms)
        case .near(let operands, let distance):
            return try near(operands, distance: distance)
        case .and(let left, let right):
            let leftMatches = try evaluate(left)
            let rightMatches = try evaluate(right)
            var result: Matches = [:]
            for (id, hits) in leftMatches { if let more = rightMatches[id] { result[id] = hits + more } }
            return result
        case .or(let left, let right):
            return try evaluate(left).merging(try evaluate(right)) { $0 + $1 }
        case .not(let left, let right):
            let excluded = try evaluate(right)
            return try evaluate(left).filter { excluded[$0.key] == nil }
        }
    }

    /// The column a `property:` filter names: a property path as given, or its last component.
    private func column(named name: String) -> Int? {
        columns.firstIndex(of: name) ?? columns.firstIndex { $0.split(separator: ".").last.map(String.init) == name }
    }

    /// The postings of `term`. Keys come in (term, document, column) order, so a document's
    /// postings of one term are consecutive: its document frequency is counted without a set.
    private mutating func postings(_ term: MatchTerm, decodingOccurrences: Bool = true) throws -> Matches {
        var filter: Int?
        if let name = term.column {
            guard let index = column(named: name) else { return [:] }   // no such property: no match
            filter = index
        }
        var matches: Matches = [:]
        let cursor = try store.scan(prefix: FullTextPostings.termPrefix(term.text, isPrefix: term.isPrefix))
        defer { cursor.close() }
        var documents = 0
        var previousDocument = ""
        var prefixDocuments = Set<String>()
        while let entry = try cursor.next() {
            guard let (text, documentID, column) = FullTextPostings.parsePostingKey(entry.key,
                                                                                    term: term.isPrefix ? nil : term.text) else {
                throw TextAnalysisError("full-text index data is damaged (a key cannot be read)")
            }
            if term.isPrefix {
                prefixDocuments.insert(documentID)   // several terms: a document comes back per term
            } else if documentID != previousDocument || documents == 0 {
                documents += 1
                previousDocument = documentID
            }
            if let filter, filter != column { continue }
            if decodingOccurrences {
                let (length, occurrences) = try FullTextPostings.decodePosting(entry.value)
                documentLengths[documentID] = length
                for occurrence in occurrences {
                    matches[documentID, default: []].append(Hit(term: text, column: column, position: occurrence.position,
                                                                byteRange: occurrence.byteRange))
                }
            } else {
                let (length, count) = try FullTextPostings.decodePostingHeader(entry.value)
                documentLengths[documentID] = length
                matches[documentID, default: []].append(Hit(term: text, column: column, position: -1, byteRange: 0..<0,
                                                            count: count))
            }
        }
        documentFrequency[term.text] = term.isPrefix ? prefixDocuments.count : documents
        return matches
    }

    /// Occurrences of consecutive terms: the hits of each whole occurrence.
    private mutating func phraseOccurrences(_ terms: [MatchTerm]) throws -> [String: [[Hit]]] {
        var perTerm: [Matches] = []
        for term in terms { perTerm.append(try postings(term)) }
        guard let first = perTerm.first else { return [:] }
        var result: [String: [[Hit]]] = [:]
        for (documentID, starts) in first {
            let others = perTerm.dropFirst().map { $0[documentID] ?? [] }
            guard !others.contains(where: \.isEmpty) else { continue }
            for start in starts {
                var run = [start]
                for (index, hits) in others.enumerated() {
                    let expected = start.position + terms[index + 1].offset - terms[0].offset
                    guard let next = hits.first(where: { $0.column == start.column && $0.position == expected }) else {
                        run = []
                        break
                    }
                    run.append(next)
                }
                if !run.isEmpty { result[documentID, default: []].append(run) }
            }
        }
        return result
    }

    private mutating func phrase(_ terms: [MatchTerm]) throws -> Matches {
        try phraseOccurrences(terms).mapValues { $0.flatMap { $0 } }
    }

    /// Each operand (a term or phrase) within `distance` words of the next, in one property.
    private mutating func near(_ operands: [MatchExpression], distance: Int) throws -> Matches {
        var spans: [[String: [[Hit]]]] = []
        for operand in operands {
            switch operand {
            case .term(let term): spans.append(try postings(term).mapValues { $0.map { [$0] } })
            case .phrase(let terms): spans.append(try phraseOccurrences(terms))
            default: throw TextAnalysisError("NEAR joins terms and phrases only")
            }
        }
        guard let first = spans.first else { return [:] }
        var result: Matches = [:]
        for documentID in first.keys where spans.allSatisfy({ $0[documentID] != nil }) {
            var hits: [Hit] = []
            var satisfied = true
            for index in 0..<(spans.count - 1) {
                let left = spans[index][documentID] ?? [], right = spans[index + 1][documentID] ?? []
                let pairs = left.flatMap { a in right.map { b in (a, b) } }.filter { a, b in
                    guard let aFirst = a.first, let aLast = a.last, let bFirst = b.first, let bLast = b.last,
                          aFirst.column == bFirst.column else { return false }
                    let gap = bFirst.position > aLast.position ? bFirst.position - aLast.position - 1
                                                               : aFirst.position - bLast.position - 1
                    return gap >= 0 && gap <= distance
                }
                guard !pairs.isEmpty else {
                    satisfied = false
                    break
                }
                for (a, b) in pairs { hits += a + b }
            }
            if satisfied { result[documentID] = hits }
        }
        return result
    }

    /// The documents holding one exact term, ranked, without offsets: the commonest query,
    /// answered in one pass over its postings — a document's postings are consecutive, so no
    /// per-document table is built. Nil when `term` is a prefix (its terms interleave).
    func rankSingleTerm(_ term: MatchTerm, documentCount: Int, totalWords: Int) throws -> [FullTextHit]? {
        guard !term.isPrefix else { return nil }
        var filter: Int?
        if let name = term.column {
            guard let index = column(named: name) else { return [] }
            filter = index
        }
        var found: [(documentID: String, count: Int, length: Int)] = []
        var documents = 0
        var previous = ""
        let cursor = try store.scan(prefix: FullTextPostings.termPrefix(term.text, isPrefix: false))
        defer { cursor.close() }
        while let entry = try cursor.next() {
            guard let (_, documentID, column) = FullTextPostings.parsePostingKey(entry.key, term: term.text) else {
                throw TextAnalysisError("full-text index data is damaged (a key cannot be read)")
            }
            let isNewDocument = documents == 0 || documentID != previous
            if isNewDocument {
                documents += 1
                previous = documentID
            }
            if let filter, filter != column { continue }
            let (length, count) = try FullTextPostings.decodePostingHeader(entry.value)
            if let last = found.last, last.documentID == documentID {
                found[found.count - 1].count += count
            } else {
                found.append((documentID, count, length))
            }
        }
        let weight = Self.bm25(documentCount: documentCount, totalWords: totalWords)
        return found.map { FullTextHit(documentID: $0.documentID, rank: weight($0.count, $0.length, documents), offsets: []) }
            .sorted { $0.rank != $1.rank ? $0.rank > $1.rank : $0.documentID < $1.documentID }
    }

    /// BM25's contribution of one term: (occurrences in the document, the document's length,
    /// documents holding the term) → score.
    private static func bm25(documentCount: Int, totalWords: Int) -> (Int, Int, Int) -> Double {
        let k1 = 1.2, b = 0.75
        let documents = Double(max(documentCount, 1))
        let averageLength = max(Double(totalWords) / documents, 1)
        return { count, length, frequency in
            let frequency = Double(frequency)
            let idf = log((documents - frequency + 0.5) / (frequency + 0.5) + 1)
            let tf = Double(count)
            return idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * Double(length) / averageLength))
        }
    }

    /// The hits of `matches` ranked by BM25, best first (ties by document ID).
    func rank(_ matches: Matches, documentCount: Int, totalWords: Int) throws -> [FullTextHit] {
        let weight = Self.bm25(documentCount: documentCount, totalWords: totalWords)
        var hits: [FullTextHit] = []
        hits.reserveCapacity(matches.count)
        for (documentID, words) in matches {
            let length = documentLengths[documentID] ?? 0
            var frequencies: [String: Int] = [:]
            for word in words { frequencies[word.term, default: 0] += word.count }
            var score = 0.0
            for (term, count) in frequencies {
                score += weight(count, length, documentFrequency[term] ?? 1)
            }
            var offsets: [FullTextHit.Offset] = []
            if words.contains(where: { $0.position >= 0 }) {
                offsets = Set(words.filter { $0.position >= 0 }.map { FullTextHit.Offset(column: $0.column, byteRange: $0.byteRange) })
                    .sorted { ($0.column, $0.byteRange.lowerBound) < ($1.column, $1.byteRange.lowerBound) }
            }
            hits.append(FullTextHit(documentID: documentID, rank: score, offsets: offsets))
        }
        return hits.sorted { $0.rank != $1.rank ? $0.rank > $1.rank : $0.documentID < $1.documentID }
    }
}
