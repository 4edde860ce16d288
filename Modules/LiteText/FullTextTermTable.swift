import FoundationEssentials
import Glibc

/// Numbers the terms of the texts one batch of indexing meets (a rebuild round, or one write
/// transaction's changes), and remembers which term each word spelling gives, so a word is
/// hashed once per token and folded, checked against the stop words and stemmed once per
/// distinct spelling rather than once per occurrence.
///
/// Spellings are looked up by their UTF-8 bytes in an open-addressing table (no String per
/// token); terms are numbered in the order met, and ``FullTextPendingPostings`` keeps its
/// postings in arrays indexed by those numbers.
struct FullTextTermTable {
    /// Each term's UTF-8 bytes, by number.
    private(set) var terms: [[UInt8]] = []
    /// Open addressing over the terms (term number plus one, 0 for an empty slot), as for the
    /// spellings: a dictionary keyed by String, hashed and grown per new spelling, was a tenth
    /// of indexing a few hundred short texts.
    private var termSlots: [Int32] = Array(repeating: 0, count: 1024)
    private var termHashes: [UInt64] = []

    /// The spellings met: where each is in `spellingBytes`, its hash, and its term number
    /// (``stopWord`` for a word left out).
    private var spellings: [(start: Int, count: Int, hash: UInt64, term: Int32)] = []
    private var spellingBytes: [UInt8] = []
    /// Open addressing: index into `spellings` plus one, 0 for an empty slot; the count is a
    /// power of two kept at least twice the spellings'.
    private var slots: [Int32] = Array(repeating: 0, count: 1024)
    /// Whether the tokenizer's ASCII stop words are in the spellings (as ``stopWord``), so a
    /// lower-case ASCII spelling the table has not met is known not to be one: checking a
    /// `Set<String>` made a String and a SipHash of every new spelling.
    private var hasStopWords = false

    /// The term number of a word that is not indexed (a stop word).
    static let stopWord: Int32 = -1

    /// How many terms were numbered.
    var count: Int { terms.count }

    /// Bytes held, roughly.
    var estimatedBytes: Int { spellingBytes.count + spellings.count * 32 + slots.count * 4 + terms.count * 40 + termSlots.count * 4 }

    /// The number of the term `tokenizer` makes of the word `word` (its bytes as they appear
    /// in the text), or ``stopWord``.
    mutating func term(ofWord word: UnsafeBufferPointer<UInt8>.SubSequence, tokenizer: TextTokenizer) -> Int32 {
        if !hasStopWords { addStopWords(of: tokenizer) }
        let hash = Self.hash(word)
        if let known = lookUp(word, hash: hash) { return known }
        let term = analyse(word, tokenizer: tokenizer)
        insert(word, hash: hash, term: term)
        return term
    }

    /// Adds a spelling the table does not hold.
    private mutating func insert(_ word: UnsafeBufferPointer<UInt8>.SubSequence, hash: UInt64, term: Int32) {
        if spellings.count + 1 > slots.count / 2 {
            grow()
        }
        // The slot is looked for here, after analysing, which may have added the lower-case spelling.
        var slot = Int(truncatingIfNeeded: hash) & (slots.count - 1)
        while slots[slot] != 0 { slot = (slot + 1) & (slots.count - 1) }
        spellings.append((spellingBytes.count, word.count, hash, term))
        spellingBytes.append(contentsOf: word)
        slots[slot] = Int32(spellings.count)
    }

    /// Enters `tokenizer`'s stop words that are plain ASCII (already folded, so lower-case)
    /// as spellings of ``stopWord``; the others are found by ``TextTokenizer/term(for:)``.
    private mutating func addStopWords(of tokenizer: TextTokenizer) {
        hasStopWords = true
        for var word in tokenizer.stopWords where word.utf8.allSatisfy({ $0 < 0x80 }) {
            word.withUTF8 { bytes in
                let hash = Self.hash(bytes[...])
                if lookUp(bytes[...], hash: hash) == nil { insert(bytes[...], hash: hash, term: Self.stopWord) }
            }
        }
    }

    /// The term of a spelling the table holds.
    private func lookUp(_ word: UnsafeBufferPointer<UInt8>.SubSequence, hash: UInt64) -> Int32? {
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: hash) & mask
        while slots[slot] != 0 {
            let spelling = spellings[Int(slots[slot]) - 1]
            if spelling.hash == hash, spelling.count == word.count, spellingBytes.withUnsafeBufferPointer({ known in
                guard let stored = known.baseAddress, let wanted = word.base.baseAddress else { return word.isEmpty }
                return memcmp(stored + spelling.start, wanted + word.startIndex, word.count) == 0
            }) {
                return spelling.term
            }
            slot = (slot + 1) & mask
        }
        return nil
    }

    /// The term number of a spelling met the first time (fold, stop words, stem: what
    /// ``TextTokenizer/term(for:)`` does). Plain ASCII needs no String: a word with capitals
    /// is the term of its lower-case spelling (looked up, so `Pool` and `pool` are stemmed
    /// once), a lower-case one is checked and stemmed as bytes.
    private mutating func analyse(_ word: UnsafeBufferPointer<UInt8>.SubSequence, tokenizer: TextTokenizer) -> Int32 {
        guard word.allSatisfy({ $0 < 0x80 }) else {
            return tokenizer.term(for: String(decoding: word, as: UTF8.self)).map { number(of: $0) } ?? Self.stopWord
        }
        if word.contains(where: { $0 >= 0x41 && $0 <= 0x5A }) {
            return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: word.count) { lower in
                for (index, byte) in word.enumerated() { lower[index] = byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte }
                return term(ofWord: UnsafeBufferPointer(lower)[...], tokenizer: tokenizer)
            }
        }
        // Not among the spellings, so not one of the ASCII stop words entered at the start.
        return tokenizer.withTerm(ofFoldedWord: UnsafeBufferPointer(rebasing: word), knownNotStopWord: true) { term in
            term.map { number(ofBytes: $0) } ?? Self.stopWord
        }
    }

    /// The number of `term` (a new one the first time).
    mutating func number(of term: String) -> Int32 {
        var term = term
        return term.withUTF8 { number(ofBytes: $0) }
    }

    /// The number of the term whose UTF-8 bytes are `bytes` (a new one the first time).
    mutating func number(ofBytes bytes: UnsafeBufferPointer<UInt8>) -> Int32 {
        let hash = Self.hash(bytes[...])
        let mask = termSlots.count - 1
        var slot = Int(truncatingIfNeeded: hash) & mask
        while termSlots[slot] != 0 {
            let number = Int(termSlots[slot]) - 1
            if termHashes[number] == hash, terms[number].count == bytes.count, terms[number].withUnsafeBufferPointer({ known in
                guard let stored = known.baseAddress, let wanted = bytes.baseAddress else { return bytes.isEmpty }
                return memcmp(stored, wanted, bytes.count) == 0
            }) {
                return Int32(number)
            }
            slot = (slot + 1) & mask
        }
        let number = Int32(terms.count)
        terms.append(Array(bytes))
        termHashes.append(hash)
        termSlots[slot] = number + 1
        if terms.count * 2 > termSlots.count { growTermSlots() }
        return number
    }

    /// Eight bytes at a time, each step a multiply and a fold of the high bits into the low
    /// ones (the table uses the low bits): most words take one step, where FNV-1a's multiply
    /// per byte, each waiting for the last, was most of a token's lookup.
    private static func hash(_ bytes: UnsafeBufferPointer<UInt8>.SubSequence) -> UInt64 {
        var hash = UInt64(bytes.count) &* 0x9E37_79B9_7F4A_7C15
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let step = min(8, bytes.endIndex - index)
            var word: UInt64 = 0
            for offset in 0..<step { word |= UInt64(bytes[index + offset]) << (8 * offset) }
            hash = (hash ^ word) &* 0xBF58_476D_1CE4_E5B9
            hash ^= hash >> 31
            index += step
        }
        return hash
    }

    private mutating func growTermSlots() {
        termSlots = Array(repeating: 0, count: termSlots.count * 2)
        let mask = termSlots.count - 1
        for (number, hash) in termHashes.enumerated() {
            var slot = Int(truncatingIfNeeded: hash) & mask
            while termSlots[slot] != 0 { slot = (slot + 1) & mask }
            termSlots[slot] = Int32(number + 1)
        }
    }

    private mutating func grow() {
        slots = Array(repeating: 0, count: slots.count * 2)
        let mask = slots.count - 1
        for (index, spelling) in spellings.enumerated() {
            var slot = Int(truncatingIfNeeded: spelling.hash) & mask
            while slots[slot] != 0 { slot = (slot + 1) & mask }
            slots[slot] = Int32(index + 1)
        }
    }
}
