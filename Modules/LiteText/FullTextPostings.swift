import FoundationEssentials
import Glibc

/// The byte layout of a full-text index in its byte-key store (format 5). Keys start with a
/// tag byte:
///
/// - `0x00 "definition"` → the definition as JSON;
/// - `0x01 term 0x00` → the term's first block (``FullTextPostingBlock``): the directory of its
///   other blocks' starts, then the postings of the documents before the first start;
/// - `0x01 term 0x00 start` → a block of the term's postings: the documents from `start` up to
///   the next block's start, in ID order;
/// - (`0x02 docID` held a document's word counts up to format 4; each posting has its
///   document's length, and a changed document's old counts come from tokenizing its old body);
/// - `0x03 "stats"` → varint indexed documents, varint total words, varint highest document
///   sequence the index has seen (to notice writes made without it), varint format (5);
/// - `0x04 "pending"` → a token naming the write transaction whose postings are still being
///   gathered in memory (see ``FullTextPendingPostings``);
/// - `0x05` + a term's first three bytes → the postings of the terms starting so that are too
///   small to have blocks of their own (``FullTextTermGroup``); a term has blocks or is in
///   its group, never both.
///
/// Terms and document IDs never contain a 0x00 byte (terms are letters and digits; document
/// IDs have no control characters), so the separators are unambiguous and a term's blocks are
/// one contiguous key range in document-ID order.
enum FullTextPostings {
    static let definitionKey: [UInt8] = [0x00] + Array("definition".utf8)
    static let statsKey: [UInt8] = [0x03] + Array("stats".utf8)
    static let pendingKey: [UInt8] = [0x04] + Array("pending".utf8)

    /// Format 2: a key per (term, document, column); 3: packed blocks per term; 4: small
    /// terms' postings packed in groups (decisions FTS-16); 5: no word-count entry per
    /// document (FTS-18).
    static let currentFormat = 5

    /// The key prefix of every block of `term` exactly (with `isPrefix`, of every term
    /// starting with it).
    static func termPrefix(_ term: String, isPrefix: Bool) -> [UInt8] {
        [0x01] + Array(term.utf8) + (isPrefix ? [] : [0x00])
    }

    /// The key of `term`'s block starting at document `firstDocumentID` (empty: its first block).
    static func blockKey(term: [UInt8], firstDocumentID: [UInt8]) -> [UInt8] {
        var key: [UInt8] = [0x01]
        key.reserveCapacity(term.count + firstDocumentID.count + 2)
        key += term
        key.append(0x00)
        key += firstDocumentID
        return key
    }

    /// The term of a block key (its bytes after the tag, up to the separator).
    static func term(ofBlockKey key: [UInt8]) -> ArraySlice<UInt8>? {
        guard key.first == 0x01, let end = key[1...].firstIndex(of: 0x00) else { return nil }
        return key[1..<end]
    }

    /// Whether key `a` sorts before `b` in the stores' (memcmp) order; `memcmp` because the
    /// generic lexicographic comparison dominated sorting a rebuild's postings.
    static func precedes(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        compare(a, b) < 0
    }

    /// memcmp order of two byte strings: negative, zero or positive.
    static func compare(_ a: [UInt8], _ b: [UInt8]) -> Int {
        a.withUnsafeBytes { left in
            b.withUnsafeBytes { right in
                guard let l = left.baseAddress, let r = right.baseAddress else { return left.count - right.count }
                let order = memcmp(l, r, min(left.count, right.count))
                return order != 0 ? Int(order) : left.count - right.count
            }
        }
    }

    static func encodeCounts(_ counts: [Int]) -> [UInt8] {
        var out: [UInt8] = []
        for count in counts { appendVarint(UInt64(count), to: &out) }
        return out
    }

    static func decodeCounts(_ bytes: [UInt8]) throws -> [Int] {
        var reader = VarintReader(bytes: bytes)
        var counts: [Int] = []
        while !reader.isAtEnd { counts.append(try reader.nextInt()) }
        return counts
    }

    @inline(__always)
    static func appendVarint(_ value: UInt64, to out: inout [UInt8]) {
        if value < 0x80 { return out.append(UInt8(value)) }   // the common case: small deltas and counts
        var value = value
        while value >= 0x80 {
            out.append(UInt8(value & 0x7F) | 0x80)
            value >>= 7
        }
        out.append(UInt8(value))
    }

    /// How many bytes `value` takes as a varint.
    @inline(__always)
    static func varintSize(_ value: UInt64) -> Int {
        var value = value, size = 1
        while value >= 0x80 {
            value >>= 7
            size += 1
        }
        return size
    }

    /// Writes `value` as a varint into `out` at `offset` and moves `offset` past it; the
    /// caller made room for it (``varintSize(_:)``).
    @inline(__always)
    static func writeVarint(_ value: UInt64, to out: UnsafeMutableBufferPointer<UInt8>, at offset: inout Int) {
        var value = value
        while value >= 0x80 {
            out[offset] = UInt8(value & 0x7F) | 0x80
            offset += 1
            value >>= 7
        }
        out[offset] = UInt8(value)
        offset += 1
    }

    /// Appends `count` bytes to `out`, written by `body` (which writes every one of them and
    /// returns how many it wrote) into a scratch buffer and copied in one go: appending a run
    /// of zeros to write over went element by element, and byte appends each check the array.
    @inline(__always)
    static func append(_ count: Int, to out: inout [UInt8], _ body: (UnsafeMutableBufferPointer<UInt8>) -> Int) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: count) { scratch in
            let written = body(scratch)
            assert(written == count, "a full-text encoder wrote \(written) of the \(count) bytes it measured")
            out.append(contentsOf: UnsafeBufferPointer(rebasing: scratch[..<min(written, count)]))
        }
    }

    /// Calls `body` with each occurrence encoded in `bytes` (as ``FullTextDocumentTerms``
    /// writes them): its word position and UTF-8 byte range.
    static func forEachOccurrence(in bytes: UnsafeBufferPointer<UInt8>,
                                  _ body: (_ position: Int, _ byteRange: Range<Int>) throws -> Void) throws {
        var reader = UnsafeVarintReader(bytes, from: 0)
        var position = 0, start = 0
        while !reader.isAtEnd {
            let (positionDelta, startDelta, length) = (try reader.nextInt(), try reader.nextInt(), try reader.nextInt())
            guard positionDelta <= Int.max - position, startDelta <= Int.max - start, start + startDelta <= Int.max - length else {
                throw TextAnalysisError("full-text posting is damaged")
            }
            position += positionDelta
            start += startDelta
            try body(position, start..<(start + length))
        }
    }

    /// Reads varints from bytes in place (a block being searched); each read is checked
    /// against the end, so damaged data throws instead of reading past it.
    struct UnsafeVarintReader {
        private let bytes: UnsafeBufferPointer<UInt8>
        private var offset: Int

        init(_ bytes: UnsafeBufferPointer<UInt8>, from offset: Int) {
            self.bytes = bytes
            self.offset = min(max(offset, 0), bytes.count)
        }

        var isAtEnd: Bool { offset >= bytes.count }
        /// Bytes left to read.
        var remaining: Int { bytes.count - offset }

        /// The next `count` bytes (at most ``remaining``), skipped.
        mutating func take(_ count: Int) -> UnsafeBufferPointer<UInt8> {
            let end = offset + min(count, remaining)
            defer { offset = end }
            return UnsafeBufferPointer(rebasing: bytes[offset..<end])
        }

        mutating func nextInt() throws -> Int {
            // One byte is the common case (small deltas, counts, columns).
            if offset < bytes.count, bytes[offset] < 0x80 {
                defer { offset += 1 }
                return Int(bytes[offset])
            }
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while offset < bytes.count, shift < 64 {
                let byte = bytes[offset]
                offset += 1
                value |= UInt64(byte & 0x7F) << shift
                if byte < 0x80 {
                    guard let result = Int(exactly: value) else {
                        throw TextAnalysisError("full-text index data is damaged (a number is out of range)")
                    }
                    return result
                }
                shift += 7
            }
            throw TextAnalysisError("full-text index data is damaged (a number is cut short)")
        }
    }

    struct VarintReader {
        let bytes: [UInt8]
        var offset: Int
        let end: Int
        var isAtEnd: Bool { offset >= end }

        init(bytes: [UInt8], offset: Int = 0, end: Int? = nil) {
            self.bytes = bytes
            self.offset = offset
            self.end = min(end ?? bytes.count, bytes.count)
        }

        mutating func nextInt() throws -> Int {
            guard let value = Int(exactly: try next()) else {
                throw TextAnalysisError("full-text index data is damaged (a number is out of range)")
            }
            return value
        }

        mutating func next() throws -> UInt64 {
            // One byte is the common case (small deltas, counts, columns).
            if offset < end, bytes[offset] < 0x80 {
                defer { offset += 1 }
                return UInt64(bytes[offset])
            }
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while offset < end, shift < 64 {
                let byte = bytes[offset]
                offset += 1
                value |= UInt64(byte & 0x7F) << shift
                if byte < 0x80 { return value }
                shift += 7
            }
            throw TextAnalysisError("full-text index data is damaged (a number is cut short)")
        }
    }
}
