/// Postings gathered in memory before they are merged into the term blocks, so each block is
/// written once per batch instead of once per document: during a rebuild, and during a write
/// transaction (merged just before it commits, see ``FullTextIndex``).
///
/// Per term, one byte buffer of records in the order met: varint document ordinal, varint part
/// length, the document's part (``FullTextPostingBlock/DocumentPart``); an empty part says the
/// document no longer holds the term. A document met twice keeps its last record.
struct FullTextPendingPostings {
    /// Names the write transaction that gathers (stored under ``FullTextPostings/pendingKey``
    /// inside it: a rolled-back transaction takes it away, and these postings with it).
    let token: [UInt8]
    /// Document IDs by ordinal, in the order met.
    private(set) var documentIDs: [[UInt8]] = []
    /// Ordinals by ID, when a document may be met twice (a transaction); nil for a rebuild.
    private var ordinals: [[UInt8]: Int]?
    /// Whether the IDs were met in ascending order, each once.
    private var isAscending = true
    private var terms: [String: TermRecords] = [:]
    /// Bytes held, roughly (to merge before memory grows without bound).
    private(set) var estimatedBytes = 0

    /// Changes to the index's totals, and the highest document sequence seen.
    var documentsDelta = 0
    var wordsDelta = 0
    var sequence = 0

    fileprivate struct TermRecords {
        var bytes: [UInt8] = []
        var lastOrdinal = -1
        /// Whether ordinals were appended out of order or repeated.
        var needsSort = false
    }

    init(token: [UInt8], documentsMayRepeat: Bool) {
        self.token = token
        ordinals = documentsMayRepeat ? [:] : nil
    }

    var isEmpty: Bool { terms.isEmpty }

    /// The ordinal of document `id` (a new one the first time).
    mutating func ordinal(of id: [UInt8]) -> Int {
        if let known = ordinals?[id] { return known }
        if let last = documentIDs.last, isAscending, !FullTextPostings.precedes(last, id) { isAscending = false }
        documentIDs.append(id)
        ordinals?[id] = documentIDs.count - 1
        estimatedBytes += id.count + 48
        return documentIDs.count - 1
    }

    /// Records document `ordinal`'s part for `term` (empty: it no longer holds the term).
    mutating func record(term: String, ordinal: Int, part: ArraySlice<UInt8>) {
        let before = terms.count
        terms[term, default: TermRecords()].append(ordinal: ordinal, part: part)
        estimatedBytes += part.count + 4 + (terms.count > before ? term.utf8.count + 64 : 0)
    }

    /// Every term's documents in ID order (the last record of each), terms in byte order.
    func sortedTerms() -> [(term: [UInt8], documents: [(id: [UInt8], part: ArraySlice<UInt8>)])] {
        // The rank of each ordinal in document-ID order.
        var rank = Array(0..<documentIDs.count)
        if !isAscending {
            let order = rank.sorted { FullTextPostings.precedes(documentIDs[$0], documentIDs[$1]) }
            for (position, ordinal) in order.enumerated() { rank[ordinal] = position }
        }
        let names = terms.keys.map { (Array($0.utf8), $0) }.sorted { FullTextPostings.precedes($0.0, $1.0) }
        return names.map { bytes, name in
            guard let records = terms[name] else { return (bytes, []) }
            return (bytes, records.documents(documentIDs: documentIDs, rank: rank, sorted: isAscending && !records.needsSort))
        }
    }
}

extension FullTextPendingPostings.TermRecords {
    mutating func append(ordinal: Int, part: ArraySlice<UInt8>) {
        if ordinal <= lastOrdinal { needsSort = true }
        lastOrdinal = ordinal
        FullTextPostings.appendVarint(UInt64(ordinal), to: &bytes)
        FullTextPostings.appendVarint(UInt64(part.count), to: &bytes)
        bytes += part
    }

    /// The records as (document ID, part), in ID order, one per document (its last).
    func documents(documentIDs: [[UInt8]], rank: [Int], sorted: Bool) -> [(id: [UInt8], part: ArraySlice<UInt8>)] {
        // The records were written by `append` in this process: they always decode.
        var records: [(ordinal: Int, part: ArraySlice<UInt8>)] = []
        var offset = 0
        func varint() -> Int {
            var value = 0, shift = 0
            while offset < bytes.count {
                let byte = bytes[offset]
                offset += 1
                value |= Int(byte & 0x7F) << shift
                if byte < 0x80 { break }
                shift += 7
            }
            return value
        }
        while offset < bytes.count {
            let ordinal = varint(), length = varint()
            let end = min(offset + length, bytes.count)
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
        return records.map { (documentIDs[$0.ordinal], $0.part) }
    }
}
