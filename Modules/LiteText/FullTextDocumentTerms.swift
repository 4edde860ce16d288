/// The occurrences of each term in one document, gathered while its texts are tokenized and
/// then encoded as the document's parts (see ``FullTextPostingBlock``), one per term.
///
/// Reused from document to document, so nothing is hashed or allocated per token: terms are
/// found by their number (``FullTextTermTable``) in arrays stamped with the document's serial,
/// and every occurrence is encoded as it is met into one byte arena, chained to the term's
/// previous occurrence. A record is: the next record's offset (4 bytes, little-endian; 0 for
/// none), the column, the byte count of the rest, then the varint position and byte-start
/// deltas from the term's previous occurrence in that column and the byte length — about ten
/// bytes per word (FTS-4: bytes per word, no object per word).
struct FullTextDocumentTerms {
    /// Per term number: the serial of the document that last held it, and where that
    /// document's entry for it is in `present`.
    private var stamps: [Int] = []
    private var entries: [Int32] = []
    private var serial = 0
    /// The terms of the current document in the order met: where their first and last records
    /// are, and the last occurrence's column, position and byte start (for the deltas).
    private var present: [(term: Int32, first: Int, last: Int, column: Int, position: Int, start: Int)] = []
    private var arena: [UInt8] = [0]   // offset 0 is never a record, so it can mean "none"

    /// Starts another document.
    mutating func reset() {
        serial += 1
        present.removeAll(keepingCapacity: true)
        arena.removeAll(keepingCapacity: true)
        arena.append(0)
    }

    /// Bytes held for the current document, roughly.
    var estimatedBytes: Int { arena.count + present.count * 48 }

    /// Adds an occurrence of term `term` (columns in order, each one's words in text order).
    ///
    /// - Throws: when one document's occurrences outgrow 4 GB of records (hundreds of MB of text).
    mutating func add(term: Int32, column: Int, position: Int, byteRange: Range<Int>) throws {
        let number = Int(term)
        if number >= stamps.count {
            let size = max(number + 1, stamps.count * 2, 256)
            stamps += repeatElement(0, count: size - stamps.count)
            entries += repeatElement(0, count: size - entries.count)
        }
        let offset = arena.count
        guard offset < Int(UInt32.max) - 64 else {
            throw TextAnalysisError("a document's text is too large to index (over 4 GB of word records)")
        }
        var lastPosition = 0, lastStart = 0
        if stamps[number] == serial {
            let entry = Int(entries[number])
            if present[entry].column == column { (lastPosition, lastStart) = (present[entry].position, present[entry].start) }
            let link = present[entry].last   // the previous record's link now points here
            for index in 0..<4 { arena[link + index] = UInt8(truncatingIfNeeded: offset >> (8 * index)) }
            present[entry].last = offset
            present[entry].column = column
            present[entry].position = position
            present[entry].start = byteRange.lowerBound
        } else {
            stamps[number] = serial
            entries[number] = Int32(present.count)
            present.append((term, offset, offset, column, position, byteRange.lowerBound))
        }
        for _ in 0..<4 { arena.append(0) }   // the link, set when the term occurs again
        arena.append(UInt8(truncatingIfNeeded: column))
        arena.append(0)                        // the length, set below
        FullTextPostings.appendVarint(UInt64(position - lastPosition), to: &arena)
        FullTextPostings.appendVarint(UInt64(byteRange.lowerBound - lastStart), to: &arena)
        FullTextPostings.appendVarint(UInt64(byteRange.count), to: &arena)
        arena[offset + 5] = UInt8(arena.count - offset - 6)
    }

    /// How many terms the current document holds.
    var termCount: Int { present.count }

    /// The number of the document's `index`th term (in the order met).
    func term(at index: Int) -> Int32 { present[index].term }

    /// Appends the part of the document's `index`th term (in the order met) to `out`, behind
    /// its byte length as a varint: the document's length, then per property holding the term
    /// its column, occurrence count, the occurrences' byte length and the occurrences (as
    /// ``FullTextPostingBlock`` describes them). Measured first, then written and appended in
    /// one go: the parts went through a buffer of their own, appended a byte or a varint at a time.
    func appendPart(ofTermAt index: Int, documentLength: Int, to out: inout [UInt8]) {
        let first = present[index].first
        // Static, so that no closure below captures (and copies) this struct's arrays.
        arena.withUnsafeBufferPointer { Self.appendPart(from: first, in: $0, documentLength: documentLength, to: &out) }
    }

    /// Appends the part whose first record is at `first` in `arena` (see ``appendPart(ofTermAt:documentLength:to:)``).
    private static func appendPart(from first: Int, in arena: UnsafeBufferPointer<UInt8>, documentLength: Int,
                                   to out: inout [UInt8]) {
        func next(_ record: Int) -> Int {
            Int(arena[record]) | Int(arena[record + 1]) << 8 | Int(arena[record + 2]) << 16 | Int(arena[record + 3]) << 24
        }
        /// The records of one column from `record` on: how many, their bytes, and the record after them.
        func column(from record: Int) -> (column: UInt8, count: Int, bytes: Int, end: Int) {
            let column = arena[record + 4]
            var end = record, count = 0, bytes = 0
            while end != 0, arena[end + 4] == column {
                count += 1
                bytes += Int(arena[end + 5])
                end = next(end)
            }
            return (column, count, bytes, end)
        }
        var length = FullTextPostings.varintSize(UInt64(documentLength))
        var record = first
        while record != 0 {
            let run = column(from: record)
            length += FullTextPostings.varintSize(UInt64(run.column)) + FullTextPostings.varintSize(UInt64(run.count))
                + FullTextPostings.varintSize(UInt64(run.bytes)) + run.bytes
            record = run.end
        }
        FullTextPostings.append(FullTextPostings.varintSize(UInt64(length)) + length, to: &out) { out in
            var offset = 0
            FullTextPostings.writeVarint(UInt64(length), to: out, at: &offset)
            FullTextPostings.writeVarint(UInt64(documentLength), to: out, at: &offset)
            var record = first
            while record != 0 {
                let run = column(from: record)
                FullTextPostings.writeVarint(UInt64(run.column), to: out, at: &offset)
                FullTextPostings.writeVarint(UInt64(run.count), to: out, at: &offset)
                FullTextPostings.writeVarint(UInt64(run.bytes), to: out, at: &offset)
                while record != run.end {
                    let size = Int(arena[record + 5])
                    for byte in 0..<size { out[offset + byte] = arena[record + 6 + byte] }
                    offset += size
                    record = next(record)
                }
            }
            return offset
        }
    }
}
