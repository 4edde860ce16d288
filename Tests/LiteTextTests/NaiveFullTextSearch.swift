import Foundation
@testable import LiteText

/// A brute-force model of a full-text index for property tests: every document's tokens kept
/// in a list, a match expression evaluated by looking at all of them, BM25 computed from
/// scratch — no postings, blocks or merges. It shares only the tokenizer and the parsed
/// expression with the index.
struct NaiveFullTextSearch {
    struct Token {
        let term: String
        let column: Int
        let position: Int
    }

    struct Hit {
        let term: String
        let column: Int
        let position: Int
    }

    /// Indexed documents (at least one property is a string): ID → tokens.
    private var tokens: [String: [Token]] = [:]
    private let columns: [String]

    /// `texts`: per document ID, each indexed property's text (nil: missing or not a string).
    init(texts: [String: [String?]], tokenizer: TextTokenizer, columns: [String]) {
        self.columns = columns
        for (id, values) in texts where values.contains(where: { $0 != nil }) {
            var all: [Token] = []
            for (column, text) in values.enumerated() {
                guard let text else { continue }
                all += tokenizer.tokens(in: text).map { Token(term: $0.term, column: column, position: $0.position) }
            }
            tokens[id] = all
        }
    }

    /// The documents matching `expression`, best first (ties in ID byte order), with BM25 ranks.
    func search(_ expression: MatchExpression) -> [(id: String, rank: Double)] {
        let documentCount = Double(max(tokens.count, 1))
        let averageLength = max(Double(tokens.values.reduce(0) { $0 + $1.count }) / documentCount, 1)
        var results: [(id: String, rank: Double)] = []
        var holdingTerm: [String: Double] = [:]
        for (id, hits) in evaluate(expression) {
            var frequencies: [String: Int] = [:]
            for hit in hits { frequencies[hit.term, default: 0] += 1 }
            let length = Double(tokens[id]?.count ?? 0)
            var rank = 0.0
            for (term, count) in frequencies {
                let holding = holdingTerm[term] ?? Double(tokens.values.filter { $0.contains { $0.term == term } }.count)
                holdingTerm[term] = holding
                let idf = log((documentCount - holding + 0.5) / (holding + 0.5) + 1)
                let tf = Double(count)
                rank += idf * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * length / averageLength))
            }
            results.append((id, rank))
        }
        return results.sorted { a, b in
            a.rank != b.rank ? a.rank > b.rank : Array(a.id.utf8).lexicographicallyPrecedes(Array(b.id.utf8))
        }
    }

    /// Document ID → the words that made it match (as many as the index reports).
    func evaluate(_ expression: MatchExpression) -> [String: [Hit]] {
        switch expression {
        case .term(let term):
            return hits(of: term)
        case .phrase(let terms):
            return runs(of: terms).mapValues { $0.flatMap { $0 } }
        case .near(let operands, let distances):
            return near(operands, distances: distances)
        case .and(let left, let right):
            let (a, b) = (evaluate(left), evaluate(right))
            var both: [String: [Hit]] = [:]
            for (id, hits) in a { if let more = b[id] { both[id] = hits + more } }
            return both
        case .or(let left, let right):
            return evaluate(left).merging(evaluate(right)) { $0 + $1 }
        case .not(let left, let right):
            let excluded = evaluate(right)
            return evaluate(left).filter { excluded[$0.key] == nil }
        }
    }

    private func column(named name: String) -> Int? {
        columns.firstIndex(of: name) ?? columns.firstIndex { $0.split(separator: ".").last.map(String.init) == name }
    }

    private func hits(of term: MatchTerm) -> [String: [Hit]] {
        var filter: Int?
        if let name = term.column {
            guard let index = column(named: name) else { return [:] }
            filter = index
        }
        let wanted = Array(term.text.utf8)
        var result: [String: [Hit]] = [:]
        for (id, all) in tokens {
            let found = all.filter { token in
                (filter == nil || filter == token.column)
                    && (term.isPrefix ? Array(token.term.utf8).starts(with: wanted) : token.term == term.text)
            }.map { Hit(term: $0.term, column: $0.column, position: $0.position) }
            if !found.isEmpty { result[id] = found }
        }
        return result
    }

    private func runs(of terms: [MatchTerm]) -> [String: [[Hit]]] {
        let perTerm = terms.map(hits(of:))
        guard let first = perTerm.first else { return [:] }
        var result: [String: [[Hit]]] = [:]
        for (id, starts) in first {
            var runs: [[Hit]] = []
            for start in starts {
                var run = [start]
                for index in perTerm.indices.dropFirst() {
                    let expected = start.position + terms[index].offset - terms[0].offset
                    guard let next = perTerm[index][id]?.first(where: { $0.column == start.column && $0.position == expected }) else {
                        run = []
                        break
                    }
                    run.append(next)
                }
                if !run.isEmpty { runs.append(run) }
            }
            if !runs.isEmpty { result[id] = runs }
        }
        return result
    }

    /// A chain: some occurrence of each operand within its distance of one of the next's, the
    /// occurrences kept being those that take part in such a chain.
    private func near(_ operands: [MatchExpression], distances: [Int]) -> [String: [Hit]] {
        let spans: [[String: [[Hit]]]] = operands.map { operand in
            switch operand {
            case .term(let term): return hits(of: term).mapValues { $0.map { [$0] } }
            case .phrase(let terms): return runs(of: terms)
            default: return [:]
            }
        }
        func near(_ a: [Hit], _ b: [Hit], _ distance: Int) -> Bool {
            guard let aFirst = a.first, let aLast = a.last, let bFirst = b.first, let bLast = b.last,
                  aFirst.column == bFirst.column else { return false }
            let gap = bFirst.position > aLast.position ? bFirst.position - aLast.position - 1 : aFirst.position - bLast.position - 1
            return gap >= 0 && gap <= distance
        }
        guard let first = spans.first else { return [:] }
        var result: [String: [Hit]] = [:]
        for id in first.keys where spans.allSatisfy({ $0[id] != nil }) {
            let occurrences = spans.map { $0[id] ?? [] }
            // Every chain of one occurrence per operand, each near the next; keep their members.
            var kept = occurrences.map { $0.map { _ in false } }
            func extend(_ chain: [Int]) {
                let index = chain.count
                if index == occurrences.count {
                    for (operand, occurrence) in chain.enumerated() { kept[operand][occurrence] = true }
                    return
                }
                for next in occurrences[index].indices
                where index == 0 || near(occurrences[index - 1][chain[index - 1]], occurrences[index][next], distances[index - 1]) {
                    extend(chain + [next])
                }
            }
            extend([])
            guard kept.contains(where: { $0.contains(true) }) else { continue }
            result[id] = occurrences.indices.flatMap { operand in
                occurrences[operand].indices.filter { kept[operand][$0] }.flatMap { occurrences[operand][$0] }
            }
        }
        return result
    }
}
