import FoundationEssentials
import Glibc
import LiteStorage

/// Evaluates a match expression against one index's posting blocks and ranks the documents.
///
/// Every intermediate result is a list of documents in ID (byte) order, as the blocks hold
/// them, so AND, OR and NOT are merges of sorted lists, with no per-document table. A list's
/// entries point into two arenas the search owns — the documents' ID bytes and their hits — so
/// reading a posting allocates nothing per document.
///
/// Ranking is Okapi BM25 (k1 = 1.2, b = 0.75) over the matched terms: a term counts more the
/// rarer it is among the indexed documents, and more occurrences count with diminishing
/// returns, normalised by the document's indexed length. (Couchbase Lite 2.8 ranks with FTS4's
/// matchinfo sums; BM25 orders the same way where one document simply has more and rarer
/// matches, and is the better-studied choice — see docs/decisions.md.)
struct FullTextSearch {
    struct Hit: Equatable {
        /// The term's number in ``terms``.
        let term: Int
        let column: Int
        /// The word's position; -1 for a hit that stands for `count` occurrences not decoded
        /// (a plain term when no offsets are wanted).
        let position: Int
        let byteRange: Range<Int>
        var count = 1
    }

    /// A matching document: where its ID is in ``ids``, its indexed length, and where the
    /// words that made it match are in ``hitArena``.
    struct DocumentMatch {
        var id: Range<Int>
        var length: Int
        var hits: Range<Int>
    }

    /// Matching documents in ID byte order.
    typealias Matches = [DocumentMatch]

    let store: any ByteKeyStore
    let columns: [String]
    /// The ID bytes of every document met, one after another.
    private(set) var ids: [UInt8] = []
    /// Hits of the documents met (a document's hits are a contiguous range).
    private(set) var hitArena: [Hit] = []
    /// The terms looked up (each term a prefix expanded to, too), by number.
    private(set) var terms: [String] = []
    private var termNumbers: [String: Int] = [:]
    /// How many documents contain each looked-up term, by term number.
    private(set) var documentFrequency: [Int] = []

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
            return try phraseOccurrences(terms).map { match(id: $0.id, length: $0.length, hits: $0.runs.joined()) }
        case .near(let operands, let distances):
            return try near(operands, distances: distances)
        case .and(let left, let right):
            let leftMatches = try evaluate(left)
            let rightMatches = try evaluate(right)
            return merge(leftMatches, rightMatches, keepLeftOnly: false, keepRightOnly: false, keepBoth: true)
        case .or(let left, let right):
            let leftMatches = try evaluate(left)
            let rightMatches = try evaluate(right)
            return merge(leftMatches, rightMatches, keepLeftOnly: true, keepRightOnly: true, keepBoth: true)
        case .not(let left, let right):
            let excluded = try evaluate(right)
            return merge(try evaluate(left), excluded, keepLeftOnly: true, keepRightOnly: false, keepBoth: false)
        }
    }

    /// The hits of a match.
    func hits(of match: DocumentMatch) -> ArraySlice<Hit> { hitArena[match.hits] }

    /// memcmp order of two documents' IDs.
    private func compareIDs(_ a: Range<Int>, _ b: Range<Int>) -> Int {
        ids.withUnsafeBytes { bytes in
            let common = min(a.count, b.count)
            if common > 0, let base = bytes.baseAddress {
                let order = memcmp(base + a.lowerBound, base + b.lowerBound, common)
                if order != 0 { return Int(order) }
            }
            return a.count - b.count
        }
    }

    /// A match whose hits are `hits`, appended to the arena.
    private mutating func match<Hits: Sequence<Hit>>(id: Range<Int>, length: Int, hits: Hits) -> DocumentMatch {
        let start = hitArena.count
        hitArena.append(contentsOf: hits)
        return DocumentMatch(id: id, length: length, hits: start..<hitArena.count)
    }

    /// Walks two ID-ordered lists together; a document in both gets both sides' hits.
    private mutating func merge(_ left: Matches, _ right: Matches, keepLeftOnly: Bool, keepRightOnly: Bool,
                                keepBoth: Bool) -> Matches {
        var result: Matches = []
        var i = 0, j = 0
        while i < left.count, j < right.count {
            let order = compareIDs(left[i].id, right[j].id)
            if order < 0 {
                if keepLeftOnly { result.append(left[i]) }
                i += 1
            } else if order > 0 {
                if keepRightOnly { result.append(right[j]) }
                j += 1
            } else {
                if keepBoth {
                    // Element by element: appending a slice of the arena to itself would copy it whole.
                    let start = hitArena.count
                    for hit in left[i].hits { hitArena.append(hitArena[hit]) }
                    for hit in right[j].hits { hitArena.append(hitArena[hit]) }
                    result.append(DocumentMatch(id: left[i].id, length: left[i].length, hits: start..<hitArena.count))
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

    /// The number of term `text` (a new one the first time; its document frequency 0).
    private mutating func number(ofTerm text: String) -> Int {
        if let known = termNumbers[text] { return known }
        terms.append(text)
        termNumbers[text] = terms.count - 1
        documentFrequency.append(0)
        return terms.count - 1
    }

    /// The documents holding `term` (every term it is a prefix of, for `term*`), in ID order.
    private mutating func postings(_ term: MatchTerm, decodingOccurrences: Bool = true) throws -> Matches {
        let filter: Int?
        if let name = term.column {
            guard let index = column(named: name) else { return [] }   // no such property: no match
            filter = index
        } else {
            filter = nil
        }
        var perTerm: [Matches] = []
        var matches: Matches = []
        var documents = 0
        var currentTerm: ArraySlice<UInt8> = []
        var number = term.isPrefix ? -1 : self.number(ofTerm: term.text)
        // (A static reader: the closure changes `self`, which a method of it would be reading.)
        try Self.forEachBlock(of: term, in: store) { blockTerm, block, postingsRange in
            // A prefix's terms come one after another, each in document order.
            if let blockTerm, blockTerm != currentTerm {
                if !currentTerm.isEmpty {
                    // The previous term's list is complete (written out, not a local function: a
                    // function capturing these variables boxes them, with a run-time check per access).
                    documentFrequency[number] = documents
                    if !matches.isEmpty { perTerm.append(matches) }
                    (matches, documents) = ([], 0)
                }
                currentTerm = blockTerm
                number = self.number(ofTerm: String(decoding: blockTerm, as: UTF8.self))
            }
            try FullTextPostingBlock.forEachDocument(in: block, postings: postingsRange) { id, part in
                documents += 1
                let hitStart = hitArena.count
                let length = try FullTextPostingBlock.readPart(part) { column, count, occurrences in
                    if let filter, filter != column { return }
                    if decodingOccurrences {
                        try FullTextPostings.forEachOccurrence(in: occurrences) { position, byteRange in
                            hitArena.append(Hit(term: number, column: column, position: position, byteRange: byteRange))
                        }
                    } else {
                        hitArena.append(Hit(term: number, column: column, position: -1, byteRange: 0..<0, count: count))
                    }
                }
                guard hitArena.count > hitStart else { return }
                let idStart = ids.count
                ids.append(contentsOf: id)
                matches.append(DocumentMatch(id: idStart..<ids.count, length: length, hits: hitStart..<hitArena.count))
            }
        }
        if number >= 0 { documentFrequency[number] = documents }
        if !matches.isEmpty { perTerm.append(matches) }
        guard term.isPrefix else { return perTerm.first ?? [] }
        // The documents of all the prefix's terms (each ranked with its own frequency).
        return perTerm.reduce([]) { merge($0, $1, keepLeftOnly: true, keepRightOnly: true, keepBoth: true) }
    }

    /// Occurrences of consecutive terms: per document, the hits of each whole occurrence.
    private mutating func phraseOccurrences(_ terms: [MatchTerm]) throws -> [(id: Range<Int>, length: Int, runs: [[Hit]])] {
        var perTerm: [Matches] = []
        for term in terms { perTerm.append(try postings(term)) }
        guard let first = perTerm.first else { return [] }
        var result: [(id: Range<Int>, length: Int, runs: [[Hit]])] = []
        var cursors = [Int](repeating: 0, count: perTerm.count)
        documents: for document in first {
            // The same document in every other term's list (all in ID order).
            var others: [ArraySlice<Hit>] = []
            for index in perTerm.indices.dropFirst() {
                let list = perTerm[index]
                while cursors[index] < list.count, compareIDs(list[cursors[index]].id, document.id) < 0 {
                    cursors[index] += 1
                }
                guard cursors[index] < list.count, compareIDs(list[cursors[index]].id, document.id) == 0 else { continue documents }
                others.append(hits(of: list[cursors[index]]))
            }
            var runs: [[Hit]] = []
            for start in hits(of: document) {
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

    /// Each operand (a term or phrase) within its distance of the next, in one property, as
    /// FTS4 trims a NEAR chain: an occurrence counts when it is near a counted one of the
    /// operand before it (left to right), then of the one after it (right to left).
    private mutating func near(_ operands: [MatchExpression], distances: [Int]) throws -> Matches {
        var spans: [[(id: Range<Int>, length: Int, runs: [[Hit]])]] = []
        for operand in operands {
            switch operand {
            case .term(let term):
                let matches = try postings(term)
                spans.append(matches.map { (id: $0.id, length: $0.length, runs: hits(of: $0).map { [$0] }) })
            case .phrase(let terms): spans.append(try phraseOccurrences(terms))
            default: throw TextAnalysisError("NEAR joins terms and phrases only")
            }
        }
        guard let first = spans.first, distances.count == spans.count - 1 else { return [] }
        var result: Matches = []
        var cursors = [Int](repeating: 0, count: spans.count)
        documents: for document in first {
            var perOperand = [document.runs]
            for index in spans.indices.dropFirst() {
                let list = spans[index]
                while cursors[index] < list.count, compareIDs(list[cursors[index]].id, document.id) < 0 {
                    cursors[index] += 1
                }
                guard cursors[index] < list.count, compareIDs(list[cursors[index]].id, document.id) == 0 else { continue documents }
                perOperand.append(list[cursors[index]].runs)
            }
            for index in perOperand.indices.dropFirst() {
                let before = perOperand[index - 1], distance = distances[index - 1]
                perOperand[index] = perOperand[index].filter { b in before.contains { a in Self.isNear(a, b, within: distance) } }
                guard !perOperand[index].isEmpty else { continue documents }
            }
            for index in perOperand.indices.dropLast().reversed() {
                let after = perOperand[index + 1], distance = distances[index]
                perOperand[index] = perOperand[index].filter { a in after.contains { b in Self.isNear(a, b, within: distance) } }
            }
            result.append(match(id: document.id, length: document.length, hits: perOperand.joined().joined()))
        }
        return result
    }

    /// Whether two runs (a term's or phrase's words) are in one property with at most
    /// `distance` words between them, in either order.
    private static func isNear(_ a: [Hit], _ b: [Hit], within distance: Int) -> Bool {
        guard let aFirst = a.first, let aLast = a.last, let bFirst = b.first, let bLast = b.last,
              aFirst.column == bFirst.column else { return false }
        let gap = bFirst.position > aLast.position ? bFirst.position - aLast.position - 1 : aFirst.position - bLast.position - 1
        return gap >= 0 && gap <= distance
    }

    /// The documents holding one exact term, ranked, without offsets: the commonest query,
    /// answered in one pass over its blocks, counting occurrences without decoding them.
    func rankSingleTerm(_ term: MatchTerm, documentCount: Int, totalWords: Int, byRank: Bool) throws -> [FullTextHit] {
        var filter: Int?
        if let name = term.column {
            guard let index = column(named: name) else { return [] }
            filter = index
        }
        // The hits carry their documents' term weights until the term's document count, which
        // the idf needs, is known at the end; then each is multiplied by it (see FullTextBM25).
        let bm25 = FullTextBM25(documentCount: documentCount, totalWords: totalWords)
        var hits: [FullTextHit] = []
        var documents = 0
        try Self.forEachBlock(ofTerm: term.text, in: store) { block, postings in
            try FullTextPostingBlock.forEachDocument(in: block, postings: postings) { id, part in
                documents += 1
                var count = 0
                let length = try FullTextPostingBlock.readPart(part) { column, occurrences, _ in
                    if filter == nil || filter == column { count += occurrences }
                }
                guard count > 0 else { return }
                hits.append(FullTextHit(documentID: String(decoding: id, as: UTF8.self),
                                        rank: bm25.termWeight(count: count, length: length), offsets: []))
            }
        }
        let idf = bm25.inverseDocumentFrequency(documents)
        for index in hits.indices { hits[index].rank = idf * hits[index].rank }
        guard byRank else { return hits }
        return Self.ordered(hits.count, byRank: true, score: { hits[$0].rank }) { hits[$0] }
    }

    /// Calls `body` with the postings of `term`, in key order: an exact term's blocks (with no
    /// term, see ``forEachBlock(ofTerm:in:_:)``), or for a prefix those of every term it starts,
    /// each term with its own, terms in byte order; with where in the value the postings are.
    private static func forEachBlock(of term: MatchTerm, in store: any ByteKeyStore,
                                     _ body: (_ term: ArraySlice<UInt8>?, _ block: [UInt8], _ postings: Range<Int>) throws -> Void) throws {
        guard term.isPrefix else { return try forEachBlock(ofTerm: term.text, in: store) { try body(nil, $0, $1) } }
        // The packed terms it starts (a few groups at most), then merged by term with those
        // that have blocks of their own (a term is in one place only).
        let prefix = Array(term.text.utf8)
        var groups: [[UInt8]] = []
        if prefix.count >= FullTextTermGroup.prefixLength {
            if let group = try store.get(FullTextTermGroup.key(ofTerm: prefix)) { groups.append(group) }
        } else {
            let cursor = try store.scan(prefix: FullTextTermGroup.key(ofTerm: prefix))
            defer { cursor.close() }
            while let entry = try cursor.next() { groups.append(entry.value) }
        }
        var packed: [(term: [UInt8], group: Int, postings: Range<Int>)] = []
        for (number, group) in groups.enumerated() {
            try FullTextTermGroup.forEachMember(in: group) { member, postings in
                if member.starts(with: prefix) { packed.append((Array(member), number, postings)) }
                return true
            }
        }
        var next = 0
        let cursor = try store.scan(prefix: FullTextPostings.termPrefix(term.text, isPrefix: true))
        defer { cursor.close() }
        while let entry = try cursor.next() {
            guard let blockTerm = FullTextPostings.term(ofBlockKey: entry.key) else { throw FullTextPostingBlock.damaged }
            while next < packed.count, packed[next].term.lexicographicallyPrecedes(blockTerm) {
                try body(packed[next].term[...], groups[packed[next].group], packed[next].postings)
                next += 1
            }
            try body(blockTerm, entry.value, try postingsOffset(entry)..<entry.value.count)
        }
        for member in packed[next...] { try body(member.term[...], groups[member.group], member.postings) }
    }

    /// Calls `body` with the postings of the exact term `text`, in document order: each of its
    /// blocks and where in it the postings are, or its postings in its group. The first block
    /// is a point read (a cached statement, where a scan prepares one per search: most terms
    /// have one block, rare ones none); the directory in it says whether there are others,
    /// which one scan then reads; a term with no blocks is looked for in its group.
    private static func forEachBlock(ofTerm text: String, in store: any ByteKeyStore,
                                     _ body: (_ block: [UInt8], _ postings: Range<Int>) throws -> Void) throws {
        let termBytes = Array(text.utf8)
        let firstKey = FullTextPostings.blockKey(term: termBytes, firstDocumentID: [])
        guard let first = try store.get(firstKey) else {
            guard let group = try store.get(FullTextTermGroup.key(ofTerm: termBytes)),
                  let postings = try FullTextTermGroup.postings(of: termBytes, in: group) else { return }
            return try body(group, postings)
        }
        let (otherBlocks, postings) = try FullTextPostingBlock.Directory.summary(first)
        try body(first, postings..<first.count)
        guard otherBlocks > 0 else { return }
        // The other blocks' keys are the first one's followed by a (non-empty) start; the term's
        // keys end before `0x01 term 0x01`.
        var upper = firstKey
        upper[upper.count - 1] = 0x01
        let cursor = try store.scan(ByteKeyRange(lower: firstKey + [0x00], upper: upper), descending: false)
        defer { cursor.close() }
        while let entry = try cursor.next() { try body(entry.value, 0..<entry.value.count) }
    }

    /// Where a block's postings begin: past the directory in a term's first block (the one
    /// whose key ends at the term's separator).
    private static func postingsOffset(_ entry: ByteKeyEntry) throws -> Int {
        entry.key.last == 0x00 ? try FullTextPostingBlock.Directory.postingsOffset(entry.value) : 0
    }

    /// `count` hits made by `make`, in ID order (as given) or best first with ties in ID order.
    private static func ordered(_ count: Int, byRank: Bool, score: (Int) -> Double,
                             make: (Int) -> FullTextHit) -> [FullTextHit] {
        guard byRank else { return (0..<count).map(make) }
        let order = (0..<count).map { (score($0), $0) }.sorted { $0.0 != $1.0 ? $0.0 > $1.0 : $0.1 < $1.1 }
        return order.map { make($0.1) }
    }

    /// The hits of `matches` ranked by BM25 (each term's occurrences in the document, summed
    /// over its matched terms in the order first met), best first with ties in ID byte order,
    /// or in ID order.
    func rank(_ matches: Matches, documentCount: Int, totalWords: Int, byRank: Bool) throws -> [FullTextHit] {
        let bm25 = FullTextBM25(documentCount: documentCount, totalWords: totalWords)
        var scores: [Double] = []
        scores.reserveCapacity(matches.count)
        var frequencies: [(term: Int, count: Int)] = []
        for match in matches {
            frequencies.removeAll(keepingCapacity: true)
            for hit in hits(of: match) {
                if let index = frequencies.firstIndex(where: { $0.term == hit.term }) {
                    frequencies[index].count += hit.count
                } else {
                    frequencies.append((hit.term, hit.count))
                }
            }
            var score = 0.0
            for (term, count) in frequencies {
                score += bm25.score(count: count, length: match.length, frequency: max(documentFrequency[term], 1))
            }
            scores.append(score)
        }
        return Self.ordered(matches.count, byRank: byRank, score: { scores[$0] }) { index in
            let words = hits(of: matches[index])
            var offsets: [FullTextHit.Offset] = []
            if words.contains(where: { $0.position >= 0 }) {
                offsets = Set(words.filter { $0.position >= 0 }.map { FullTextHit.Offset(column: $0.column, byteRange: $0.byteRange) })
                    .sorted { ($0.column, $0.byteRange.lowerBound) < ($1.column, $1.byteRange.lowerBound) }
            }
            return FullTextHit(documentID: String(decoding: ids[matches[index].id], as: UTF8.self), rank: scores[index],
                               offsets: offsets)
        }
    }
}
