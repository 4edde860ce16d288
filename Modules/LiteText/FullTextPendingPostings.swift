import Fleece
import LiteStorage

/// Postings gathered in memory before they are merged into the term blocks, so each block is
/// written once per batch instead of once per document: during a rebuild, and during a write
/// transaction (merged just before it commits, see ``FullTextIndex``).
///
/// Terms are numbered by a ``FullTextTermTable``. Records go to one log in the order met:
/// varint term number, varint document ordinal, varint part length, the document's part (see
/// ``FullTextPostingBlock``); an empty part says the document no longer holds the term. A
/// document met twice keeps its last record. Writing sorts the log by term with a counting
/// sort (each term's byte count is kept as records come), so each term's records are
/// contiguous — one sequential buffer instead of an array per term, whose headers cost a
/// cache miss per record.
struct FullTextPendingPostings {
    /// Names the write transaction that gathers (stored under ``FullTextPostings/pendingKey``
    /// inside it: a rolled-back transaction takes it away, and these postings with it).
    let token: [UInt8]
    /// Document IDs by ordinal, in the order met, one after another (no object per ID: a
    /// rebuild reads them back term by term, and an object each cost a cache miss per posting).
    private var idBytes: [UInt8] = []
    /// Where each ID ends in `idBytes`.
    private var idEnds: [Int] = []
    /// Ordinals by ID, when a document may be met twice (a transaction); nil for a rebuild.
    private var ordinals: [[UInt8]: Int]?
    /// Whether the IDs were met in ascending order, each once.
    private var isAscending = true
    private var termTable = FullTextTermTable()
    /// Every record, in the order met.
    private var log: [UInt8] = []
    /// Per term number: the bytes its records take in the log (without the term numbers), the
    /// last document ordinal recorded, and whether ordinals came out of order or repeated.
    private var termBytes: [Int] = []
    private var lastOrdinals: [Int] = []
    private var needsSort: [Bool] = []
    /// The current document's occurrences while it is tokenized.
    private var document = FullTextDocumentTerms()

    /// Changes to the index's totals, and the highest document sequence seen.
    var documentsDelta = 0
    var wordsDelta = 0
    var sequence = 0

    init(token: [UInt8], documentsMayRepeat: Bool) {
        self.token = token
        ordinals = documentsMayRepeat ? [:] : nil
    }

    var isEmpty: Bool { log.isEmpty }

    /// Bytes held, roughly (to merge before memory grows without bound); the log counts
    /// twice, as writing copies it.
    var estimatedBytes: Int { 2 * log.count + idBytes.count + idEnds.count * 8 + termTable.estimatedBytes + termBytes.count * 24 }

    /// The ordinal of document `id` (a new one the first time).
    mutating func ordinal(of id: [UInt8]) -> Int {
        if let known = ordinals?[id] { return known }
        if isAscending, !idEnds.isEmpty, !documentID(idEnds.count - 1).lexicographicallyPrecedes(id) {
            isAscending = false
        }
        idBytes += id
        idEnds.append(idBytes.count)
        ordinals?[id] = idEnds.count - 1
        return idEnds.count - 1
    }

    /// The ID of document `ordinal`.
    private func documentID(_ ordinal: Int) -> ArraySlice<UInt8> {
        idBytes[(ordinal == 0 ? 0 : idEnds[ordinal - 1])..<idEnds[ordinal]]
    }

    /// Tokenizes a document's indexed properties (`texts`, by column; nil or not a string:
    /// not indexed) and records its part for each of its terms.
    ///
    /// - Returns: the word count per property, or nil when no property is a string.
    mutating func add(document ordinal: Int, texts: [FleeceValue?], tokenizer: TextTokenizer) throws -> [Int]? {
        guard let counts = try tokenize(texts, tokenizer: tokenizer) else { return nil }
        return record(document: ordinal, counts: counts)
    }

    /// Records that document `ordinal` no longer holds the terms of `texts`.
    ///
    /// - Returns: the word count per property the texts held, or nil when no property is a
    ///   string (the document was not indexed).
    mutating func remove(document ordinal: Int, texts: [FleeceValue?], tokenizer: TextTokenizer) throws -> [Int]? {
        guard let counts = try tokenize(texts, tokenizer: tokenizer) else { return nil }
        for index in 0..<document.termCount {
            recordRemoval(term: document.term(at: index), ordinal: ordinal)
        }
        return counts
    }

    /// Records the current document's part for each of its terms, encoded straight into the
    /// log. - Returns: `counts`.
    private mutating func record(document ordinal: Int, counts: [Int]) -> [Int] {
        let length = counts.reduce(0, +)
        for index in 0..<document.termCount {
            let number = noteRecord(term: document.term(at: index), ordinal: ordinal)
            FullTextPostings.appendVarint(UInt64(number), to: &log)
            let start = log.count
            FullTextPostings.appendVarint(UInt64(ordinal), to: &log)
            document.appendPart(ofTermAt: index, documentLength: length, to: &log)
            termBytes[number] += log.count - start
        }
        return counts
    }

    /// Tokenizes the texts into `document`. - Returns: the word count per property, or nil
    /// when no property is a string.
    private mutating func tokenize(_ texts: [FleeceValue?], tokenizer: TextTokenizer) throws -> [Int]? {
        guard texts.contains(where: { $0?.type == .string }) else { return nil }
        document.reset()
        var counts = [Int](repeating: 0, count: texts.count)
        for (column, text) in texts.enumerated() {
            guard let text, text.type == .string else { continue }
            counts[column] = try text.withPayload { raw in
                try tokenize(raw.assumingMemoryBound(to: UInt8.self), column: column, tokenizer: tokenizer)
            }
        }
        return counts
    }

    /// Tokenizes one property's text (UTF-8) into `document`. - Returns: its word count.
    private mutating func tokenize(_ bytes: UnsafeBufferPointer<UInt8>, column: Int, tokenizer: TextTokenizer) throws -> Int {
        // Stop words take a position too (a phrase across one still matches), except in an
        // index adopted from Couchbase Lite, whose positions count kept words only.
        var position = 0, count = 0
        let stopWordsTakePositions = tokenizer.stopWordsTakePositions
        try TextTokenizer.forEachWordRange(in: bytes) { range in
            let term = termTable.term(ofWord: bytes[range], tokenizer: tokenizer)
            guard term != FullTextTermTable.stopWord else {
                if stopWordsTakePositions { position += 1 }
                return
            }
            count += 1
            try document.add(term: term, column: column, position: position, byteRange: range)
            position += 1
        }
        return count
    }

    /// Notes that a record of document `ordinal` for term number `term` follows in the log
    /// (whether the term's ordinals stay ascending). - Returns: the term number as an index.
    private mutating func noteRecord(term: Int32, ordinal: Int) -> Int {
        let number = Int(term)
        if number >= termBytes.count {
            let added = number + 1 - termBytes.count
            termBytes += repeatElement(0, count: added)
            lastOrdinals += repeatElement(-1, count: added)
            needsSort += repeatElement(false, count: added)
        }
        if ordinal <= lastOrdinals[number] { needsSort[number] = true }
        lastOrdinals[number] = ordinal
        return number
    }

    /// Records that document `ordinal` no longer holds term number `term` (an empty part).
    private mutating func recordRemoval(term: Int32, ordinal: Int) {
        let number = noteRecord(term: term, ordinal: ordinal)
        FullTextPostings.appendVarint(UInt64(number), to: &log)
        let start = log.count
        FullTextPostings.appendVarint(UInt64(ordinal), to: &log)
        FullTextPostings.appendVarint(0, to: &log)
        termBytes[number] += log.count - start
    }

    /// Writes every term's postings into its blocks, terms in byte order (a B-tree takes
    /// sorted inserts faster). `knownEmpty`: no term has blocks yet (a rebuild's first round);
    /// a term whose documents came in ID order, each once, is then encoded straight into
    /// blocks, with no merge.
    func write(into store: any ByteKeyStore, knownEmpty: Bool, in txn: borrowing WriteTransaction) throws {
        // The rank of each ordinal in document-ID order.
        var rank = Array(0..<idEnds.count)
        if !isAscending {
            let order = rank.sorted { documentID($0).lexicographicallyPrecedes(documentID($1)) }
            for (position, ordinal) in order.enumerated() { rank[ordinal] = position }
        }
        let terms = termTable.terms
        let order = Self.inByteOrder(termBytes.indices.filter { termBytes[$0] > 0 }, terms: terms)
        let sortedLog = sortedByTerm(order)
        // Terms with small postings and no blocks of their own go into their groups (format 4).
        var groups = FullTextTermGroup.Writer(store: store, knownEmpty: knownEmpty)
        var start = 0
        // The buffers are lent once for all terms (lending them per term was a retain and a
        // release of each, per term).
        try sortedLog.withUnsafeBufferPointer { log in
            try idBytes.withUnsafeBufferPointer { ids in
                try idEnds.withUnsafeBufferPointer { idEnds in
                    for number in order {
                        let range = start..<(start + termBytes[number])
                        start = range.upperBound
                        let term = terms[number]
                        let sorted = isAscending && !needsSort[number]
                        if knownEmpty && sorted {
                            let pieces = TermRecords.blocks(of: UnsafeBufferPointer(rebasing: log[range]), ids: ids, idEnds: idEnds)
                            if pieces.count == 1, pieces[0].bytes.count <= FullTextTermGroup.packedTermBytes {
                                try groups.add(term: term, postings: pieces[0].bytes[...], in: txn)
                            } else {
                                try FullTextTermBlocks.write(term: term, pieces: pieces, into: store, in: txn)
                            }
                            continue
                        }
                        let records = TermRecords(bytes: sortedLog, range: range)
                        let documents = records.documents(documentIDs: { Array(documentID($0)) }, rank: rank, sorted: sorted)
                        let first = knownEmpty ? nil : try store.get(FullTextPostings.blockKey(term: term, firstDocumentID: []))
                        if first != nil {
                            try FullTextTermBlocks.merge(term: term, documents: documents, into: store, first: first, in: txn)
                        } else {
                            try groups.add(term: term, documents: documents, in: txn)
                        }
                    }
                }
            }
        }
        try groups.finish(in: txn)
    }

    /// Term numbers sorted by their terms' bytes (memcmp order): by the first eight bytes read
    /// as one big-endian number (shorter terms padded with zeros, which keeps that order), the
    /// rest compared only on a tie. Comparing the terms' arrays each time was a tenth of
    /// writing; a comparison sort of the numbers still cost about 0.3 ms for the hotels' 2,900
    /// terms, a radix sort of them (a pass per byte, stable) a tenth of that.
    static func inByteOrder(_ numbers: [Int], terms: [[UInt8]]) -> [Int] {
        var keyed = numbers.map { number in
            var prefix: UInt64 = 0
            let term = terms[number]
            for index in 0..<8 { prefix = prefix << 8 | UInt64(index < term.count ? term[index] : 0) }
            return (prefix: prefix, number: number)
        }
        var scratch = keyed
        var starts = [Int](repeating: 0, count: 256)
        for shift in stride(from: UInt64(0), to: 64, by: 8) {
            for digit in 0..<256 { starts[digit] = 0 }
            for item in keyed { starts[Int(truncatingIfNeeded: item.prefix >> shift) & 0xFF] += 1 }
            if starts.contains(keyed.count) { continue }   // every key has the same byte here
            var total = 0
            for digit in 0..<256 { (starts[digit], total) = (total, total + starts[digit]) }
            for item in keyed {
                let digit = Int(truncatingIfNeeded: item.prefix >> shift) & 0xFF
                scratch[starts[digit]] = item
                starts[digit] += 1
            }
            swap(&keyed, &scratch)
        }
        // Terms sharing their first eight bytes are ordered by the rest.
        var start = 0
        while start < keyed.count {
            var end = start + 1
            while end < keyed.count, keyed[end].prefix == keyed[start].prefix { end += 1 }
            if end - start > 1 {
                keyed[start..<end].sort { FullTextPostings.precedes(terms[$0.number], terms[$1.number]) }
            }
            start = end
        }
        return keyed.map(\.number)
    }

    /// The log's records without their term numbers, each term's together in `order` (a
    /// counting sort: every term's size is known), each term's in the order met.
    private func sortedByTerm(_ order: [Int]) -> [UInt8] {
        var next = [Int](repeating: 0, count: termBytes.count)
        var total = 0
        for number in order {
            next[number] = total
            total += termBytes[number]
        }
        var sorted = [UInt8](repeating: 0, count: total)
        sorted.withUnsafeMutableBufferPointer { out in
            log.withUnsafeBufferPointer { log in
                var offset = 0
                while offset < log.count {
                    let number = trustedVarint(log, &offset)
                    let start = offset
                    _ = trustedVarint(log, &offset)
                    let length = trustedVarint(log, &offset)
                    offset = min(log.count, offset + length)
                    let count = offset - start
                    guard number < next.count, next[number] + count <= out.count, let from = log.baseAddress,
                          let to = out.baseAddress else { continue }
                    (to + next[number]).update(from: from + start, count: count)
                    next[number] += count
                }
            }
        }
        return sorted
    }
}

/// One term's records in the sorted log (as ``FullTextPendingPostings`` writes them, without
/// the term number): varint document ordinal, varint part length, the part.
private struct TermRecords {
    let bytes: [UInt8]
    let range: Range<Int>

    /// The records of one term (`records`, documents in ID order, each once), encoded as
    /// blocks (``FullTextPostingBlock/Writer``), closed as they fill; removals (empty parts)
    /// left out. `ids` and `idEnds`: the document IDs by ordinal, one after another.
    static func blocks(of records: UnsafeBufferPointer<UInt8>, ids: UnsafeBufferPointer<UInt8>,
                       idEnds: UnsafeBufferPointer<Int>) -> [FullTextPostingBlock.Writer] {
        var pieces: [FullTextPostingBlock.Writer] = []
        var writer = FullTextPostingBlock.Writer(expectedBytes: records.count)
        var offset = 0
        while offset < records.count {
            let ordinal = trustedVarint(records, &offset), length = trustedVarint(records, &offset)
            let end = min(offset + length, records.count)
            if end > offset, ordinal < idEnds.count {
                if writer.isFull {
                    pieces.append(writer)
                    writer = FullTextPostingBlock.Writer(expectedBytes: records.count - offset)
                }
                let id = ids[(ordinal == 0 ? 0 : idEnds[ordinal - 1])..<idEnds[ordinal]]
                writer.append(documentID: UnsafeBufferPointer(rebasing: id),
                              part: UnsafeBufferPointer(rebasing: records[offset..<end]))
            }
            offset = end
        }
        if !writer.isEmpty { pieces.append(writer) }
        return pieces
    }

    /// The records as (document ID, part), in ID order, one per document (its last).
    func documents(documentIDs: (Int) -> [UInt8], rank: [Int], sorted: Bool) -> [(id: [UInt8], part: ArraySlice<UInt8>)] {
        var records: [(ordinal: Int, part: ArraySlice<UInt8>)] = []
        let slice = bytes[range]
        var offset = range.lowerBound
        while offset < range.upperBound {
            let ordinal = trustedVarint(slice, &offset), length = trustedVarint(slice, &offset)
            let end = min(offset + length, range.upperBound)
            records.append((ordinal, bytes[offset..<end]))
            offset = end
        }
        if !sorted {
            // Stable by arrival, so the last record of a document is the one kept below.
            records = records.enumerated().sorted { a, b in
                rank[a.element.ordinal] != rank[b.element.ordinal] ? rank[a.element.ordinal] < rank[b.element.ordinal]
                                                                   : a.offset < b.offset
            }.map(\.element)
            var unique: [(ordinal: Int, part: ArraySlice<UInt8>)] = []
            unique.reserveCapacity(records.count)
            for record in records {
                if let last = unique.last, last.ordinal == record.ordinal { unique[unique.count - 1] = record } else { unique.append(record) }
            }
            records = unique
        }
        return records.map { (documentIDs($0.ordinal), $0.part) }
    }
}

/// The varint at `offset` in `bytes`, which this process wrote (the pending log and its sorted
/// copy, a block being written), so it always decodes; `offset` moves past it (never past the end).
func trustedVarint<Bytes: RandomAccessCollection<UInt8>>(_ bytes: Bytes, _ offset: inout Int) -> Int
    where Bytes.Index == Int {
    var value = 0, shift = 0
    while offset < bytes.endIndex, shift < 64 {
        let byte = bytes[offset]
        offset += 1
        value |= Int(byte & 0x7F) << shift
        if byte < 0x80 { break }
        shift += 7
    }
    return value
}
