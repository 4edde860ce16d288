import Foundation
import LiteStorage

/// Evaluates a match expression against one index's posting blocks and ranks the documents.
///
/// Every intermediate result is a list of documents in ID (byte) order, as the blocks hold
/// them, so AND, OR and NOT are merges of sorted lists, with no per-document table.
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

    /// A matching document: its ID, its indexed length, and the words that made it match.
    struct DocumentMatch {
        var id: [UInt8]
        var length: Int
        var hits: [Hit]
    }

    /// Matching documents in ID byte order.
    typealias Matches = [DocumentMatch]

    let store: any ByteKeyStore
    let columns: [String]
    /// How many documents contain each looked-up term (each term a prefix expanded to, too).
    private(set) var documentFrequency: [String: Int] = [:]

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
            return try phraseOccurrences(terms).map { DocumentMatch(id: $0.id, length: $0.length, hits: $0.runs.flatMap { $0 }) }
        case .near(let operands, let distance):
            return try near(operands, distance: distance)
        case .and(let left, let right):
            let leftMatches = try evaluate(left)
            let rightMatches = try evaluate(right)
            return Self.merge(leftMatches, rightMatches, keepLeftOnly: false, keepRightOnly: false, keepBoth: true)
        case .or(let left, let right):
            let leftMatches = try evaluate(left)
            let rightMatches = try evaluate(right)
            return Self.merge(leftMatches, rightMatches, keepLeftOnly: true, keepRightOnly: true, keepBoth: true)
        case .not(let left, let right):
            let excluded = try evaluate(right)
            return Self.merge(try evaluate(left), excluded, keepLeftOnly: true, keepRightOnly: false, keepBoth: false)
        }
    }

    /// Walks two ID-ordered lists together; a document in both gets both sides' hits.
    private static func merge(_ left: Matches, _ right: Matches, keepLeftOnly: Bool, keepRightOnly: Bool,
                              keepBoth: Bool) -> Matches {
        var result: Matches = []
        var i = 0, j = 0
        while i < left.count, j < right.count {
            let order = FullTextPostings.compare(left[i].id, right[j].id)
            if order < 0 {
                if keepLeftOnly { result.append(left[i]) }
                i += 1
            } else if order > 0 {
                if keepRightOnly { result.append(right[j]) }
                j += 1
            } else {
                if keepBoth {
                    var both = left[i]
                    both.hits += right[j].hits
                    result.append(both)
                }
                i += 1
                j += 1
            }
        }
        if keepLeftOnly { result += left[i...] }
        if keepRightOnly { result += right[j...] }
        return result
    }

    /// The column a `property:` filter names: a property path as given, or its last component.
    private func column(named name: String) -> Int? {
        columns.firstIndex(of: name) ?? columns.firstIndex { $0.split(separator: ".").last.map(String.init) == name }
    }

    /// The documents holding `term` (every term it is a prefix of, for `term*`), in ID order.
    private mutating func postings(_ term: MatchTerm, decodingOccurrences: Bool = true) throws -> Matches {
        var filter: Int?
        if let name = term.column {
            guard let index = column(named: name) else { return [] }   // no such property: no match
            filter = index
        }
        var perTerm: [Matches] = []
        var matches: Matches = []
        var documents = 0
        var currentTerm: ArraySlice<UInt8> = []
        var text = term.text
        func finishTerm() {
            if documents > 0 || !term.isPrefix { documentFrequency[text] = documents }
            if !matches.isEmpty { perTerm.append(matches) }
            (matches, documents) = ([], 0)
        }
        let cursor = try store.scan(prefix: FullTextPostings.termPrefix(term.text, isPrefix: term.isPrefix))
        defer { cursor.close() }
        while let entry = try cursor.next() {
            if term.isPrefix {
                // A prefix's terms come one after another, each in document order.
                guard let blockTerm = FullTextPostings.term(ofBlockKey: entry.key) else { throw FullTextPostingBlock.damaged }
                if blockTerm != currentTerm {
                    if !currentTerm.isEmpty { finishTerm() }
                    currentTerm = blockTerm
                    text = String(decoding: blockTerm, as: UTF8.self)
                }
            }
            var reader = FullTextPostingBlock.Reader(entry.value, from: try Self.postingsOffset(entry))
            while try reader.next() {
                documents += 1
                var hits: [Hit] = []
                let length = try reader.documentPart.read { column, count, occurrences in
                    if let filter, filter != column { return }
                    if decodingOccurrences {
                        for occurrence in try FullTextPostings.decodeOccurrences(reader.bytes, occurrences) {
                            hits.append(Hit(term: text, column: column, position: occurrence.position,
                                            byteRange: occurrence.byteRange))
                        }
                    } else {
                        hits.append(Hit(term: text, column: column, position: -1, byteRange: 0..<0, count: count))
                    }
                }
                if !hits.isEmpty { matches.append(DocumentMatch(id: reader.documentID, length: length, hits: hits)) }
            }
        }
        finishTerm()
        guard term.isPrefix else { return perTerm.first ?? [] }
        // The documents of all the prefix's terms (each ranked with its own frequency).
        return perTerm.reduce([]) { Self.merge($0, $1, keepLeftOnly: true, keepRightOnly: true, keepBoth: true) }
    }

    /// Occurrences of consecutive terms: per document, the hits of each whole occurrence.
    private mutating func phraseOccurrences(_ terms: [MatchTerm]) throws -> [(id: [UInt8], length: Int, runs: [[Hit]])] {
        var perTerm: [Matches] = []
        for term in terms { perTerm.append(try postings(term)) }
        guard let first = perTerm.first else { return [] }
        var result: [(id: [UInt8], length: Int, runs: [[Hit]])] = []
        var cursors = [Int](repeating: 0, count: perTerm.count)
        documents: for document in first {
            // The same document in every other term's list (all in ID order).
            var others: [[Hit]] = []
            for index in perTerm.indices.dropFirst() {
                let list = perTerm[index]
                while cursors[index] < list.count, FullTextPostings.compare(list[cursors[index]].id, document.id) < 0 {
                    cursors[index] += 1
                }
                guard cursors[index] < list.count, list[cursors[index]].id == document.id else { continue documents }
                others.append(list[cursors[index]].hits)
            }
            var runs: [[Hit]] = []
            for start in document.hits {
                var run = [start]
                for (index, hits) in others.enumerated() {
                    let expected = start.position + terms[index + 1].offset - terms[0].offset
                    guard let next = hits.first(where: { $0.column == start.column && $0.position == expected }) else {
                        run = []
                        break
                    }
                    run.append(next)
                }
                if !run.isEmpty { runs.append(run) }
            }
            if !runs.isEmpty { result.append((id: document.id, length: document.length, runs: runs)) }
        }
        return result
    }

    /// Each operand (a term or phrase) within `distance` words of the next, in one property.
    private mutating func near(_ operands: [MatchExpression], distance: Int) throws -> Matches {
        var spans: [[(id: [UInt8], length: Int, runs: [[Hit]])]] = []
        for operand in operands {
            switch operand {
            case .term(let term): spans.append(try postings(term).map { (id: $0.id, length: $0.length, runs: $0.hits.map { [$0] }) })
            case .phrase(let terms): spans.append(try phraseOccurrences(terms))
            default: throw TextAnalysisError("NEAR joins terms and phrases only")
            }
        }
        guard let first = spans.first else { return [] }
        var result: Matches = []
        var cursors = [Int](repeating: 0, count: spans.count)
        documents: for document in first {
            var perOperand = [document.runs]
            for index in spans.indices.dropFirst() {
                let list = spans[index]
                while cursors[index] < list.count, FullTextPostings.compare(list[cursors[index]].id, document.id) < 0 {
                    cursors[index] += 1
                }
                guard cursors[index] < list.count, list[cursors[index]].id == document.id else { continue documents }
                perOperand.append(list[cursors[index]].runs)
            }
            var hits: [Hit] = []
            for index in 0..<(perOperand.count - 1) {
                let left = perOperand[index], right = perOperand[index + 1]
                let pairs = left.flatMap { a in right.map { b in (a, b) } }.filter { a, b in
                    guard let aFirst = a.first, let aLast = a.last, let bFirst = b.first, let bLast = b.last,
                          aFirst.column == bFirst.column else { return false }
                    let gap = bFirst.position > aLast.position ? bFirst.position - aLast.position - 1
                                                               : aFirst.position - bLast.position - 1
                    return gap >= 0 && gap <= distance
                }
                guard !pairs.isEmpty else { continue documents }
                for (a, b) in pairs { hits += a + b }
            }
            result.append(DocumentMatch(id: document.id, length: document.length, hits: hits))
        }
        return result
    }

    /// The documents holding one exact term, ranked, without offsets: the commonest query,
    /// answered in one pass over its blocks, counting occurrences without decoding them.
    func rankSingleTerm(_ term: MatchTerm, documentCount: Int, totalWords: Int, byRank: Bool) throws -> [FullTextHit] {
        var filter: Int?
        if let name = term.column {
            guard let index = column(named: name) else { return [] }
            filter = index
        }
        var ids: [String] = []
        var counts: [Int] = [], lengths: [Int] = []
        var documents = 0
        let cursor = try store.scan(prefix: FullTextPostings.termPrefix(term.text, isPrefix: false))
        defer { cursor.close() }
        while let entry = try cursor.next() {
            var reader = FullTextPostingBlock.Reader(entry.value, from: try Self.postingsOffset(entry))
            while try reader.next() {
                documents += 1
                var count = 0
                let length = try reader.documentPart.read { column, occurrences, _ in
                    if filter == nil || filter == column { count += occurrences }
                }
                guard count > 0 else { continue }
                ids.append(String(decoding: reader.documentID, as: UTF8.self))
                counts.append(count)
                lengths.append(length)
            }
        }
        let weight = Self.bm25(documentCount: documentCount, totalWords: totalWords)
        let scores = (0..<ids.count).map { weight(counts[$0], lengths[$0], documents) }
        return Self.hits(ids.count, byRank: byRank, score: { scores[$0] }) { FullTextHit(documentID: ids[$0], rank: scores[$0], offsets: []) }
    }

    /// Where a block's postings begin: past the directory in a term's first block (the one
    /// whose key ends at the term's separator).
    private static func postingsOffset(_ entry: ByteKeyEntry) throws -> Int {
        entry.key.last == 0x00 ? try FullTextPostingBlock.Directory.postingsOffset(entry.value) : 0
    }

    /// `count` hits made by `make`, in ID order (as given) or best first with ties in ID order.
    private static func hits(_ count: Int, byRank: Bool, score: (Int) -> Double,
                             make: (Int) -> FullTextHit) -> [FullTextHit] {
        guard byRank else { return (0..<count).map(make) }
        let order = (0..<count).map { (score($0), $0) }.sorted { $0.0 != $1.0 ? $0.0 > $1.0 : $0.1 < $1.1 }
        return order.map { make($0.1) }
    }

    /// BM25's contribution of one term: (occurrences in the document, the document's length,
    /// documents holding the term) → score.
    static func bm25(documentCount: Int, totalWords: Int) -> (Int, Int, Int) -> Double {
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

    /// The hits of `matches` ranked by BM25 (each term's occurrences in the document, summed
    /// over its matched terms in the order first met), best first with ties in ID byte order,
    /// or in ID order.
    func rank(_ matches: Matches, documentCount: Int, totalWords: Int, byRank: Bool) throws -> [FullTextHit] {
        let weight = Self.bm25(documentCount: documentCount, totalWords: totalWords)
        var scores: [Double] = []
        scores.reserveCapacity(matches.count)
        for match in matches {
            var frequencies: [(term: String, count: Int)] = []
            for hit in match.hits {
                if let index = frequencies.firstIndex(where: { $0.term == hit.term }) {
                    frequencies[index].count += hit.count
                } else {
                    frequencies.append((hit.term, hit.count))
                }
            }
            var score = 0.0
            for (term, count) in frequencies { score += weight(count, match.length, documentFrequency[term] ?? 1) }
            scores.append(score)
        }
        return Self.hits(matches.count, byRank: byRank, score: { scores[$0] }) { index in
            let words = matches[index].hits
            var offsets: [FullTextHit.Offset] = []
            if words.contains(where: { $0.position >= 0 }) {
                offsets = Set(words.filter { $0.position >= 0 }.map { FullTextHit.Offset(column: $0.column, byteRange: $0.byteRange) })
                    .sorted { ($0.column, $0.byteRange.lowerBound) < ($1.column, $1.byteRange.lowerBound) }
            }
            return FullTextHit(documentID: String(decoding: matches[index].id, as: UTF8.self), rank: scores[index],
                               offsets: offsets)
        }
    }
}
