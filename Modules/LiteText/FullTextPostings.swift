import Foundation

/// The byte layout of a full-text index in its byte-key store. Keys start with a tag byte:
///
/// - `0x00 "definition"` → the definition as JSON;
/// - `0x01 term 0x00 docID 0x00 column` → the term's occurrences in that property: varint
///   document length (its indexed words in all properties, for ranking without another
///   read), varint count, then per occurrence varint position, varint byte start, varint
///   byte length;
/// - `0x02 docID` → varint word count per indexed property (for length normalisation);
/// - `0x03 "stats"` → varint indexed documents, varint total words, varint highest document
///   sequence the index has seen (to notice writes made without it), varint format (2).
///
/// Terms and document IDs never contain a 0x00 byte (terms are letters and digits; document
/// IDs have no control characters), so the separators are unambiguous and a term's postings
/// are one contiguous key range.
enum FullTextPostings {
    static let definitionKey: [UInt8] = [0x00] + Array("definition".utf8)
    static let statsKey: [UInt8] = [0x03] + Array("stats".utf8)

    static func postingKey(term: String, documentID: String, column: Int) -> [UInt8] {
        [0x01] + Array(term.utf8) + [0x00] + Array(documentID.utf8) + [0x00, UInt8(truncatingIfNeeded: column)]
    }

    /// Every posting of `term` exactly (with `prefix`, of every term starting with it).
    static func termPrefix(_ term: String, isPrefix: Bool) -> [UInt8] {
        [0x01] + Array(term.utf8) + (isPrefix ? [] : [0x00])
    }

    /// Splits a posting key into term, document ID and column (`term`: the term when the
    /// caller knows it, saving a string per key).
    static func parsePostingKey(_ key: [UInt8], term: String? = nil) -> (term: String, documentID: String, column: Int)? {
        guard key.count >= 4, key[0] == 0x01 else { return nil }
        let termEnd: Int
        if let term {
            termEnd = 1 + term.utf8.count
            guard termEnd < key.count, key[termEnd] == 0x00 else { return nil }
        } else {
            guard let found = key[1...].firstIndex(of: 0x00) else { return nil }
            termEnd = found
        }
        // The column is the last byte, after the document ID's terminator.
        let idEnd = key.count - 2
        guard idEnd > termEnd, key[idEnd] == 0x00 else { return nil }
        return (term ?? String(decoding: key[1..<termEnd], as: UTF8.self),
                String(decoding: key[(termEnd + 1)..<idEnd], as: UTF8.self), Int(key[idEnd + 1]))
    }

    static func documentKey(_ documentID: String) -> [UInt8] { [0x02] + Array(documentID.utf8) }

    /// Whether key `a` sorts before `b` in the stores' (memcmp) order; `memcmp` because the
    /// generic lexicographic comparison dominated sorting a rebuild's postings.
    static func precedes(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        a.withUnsafeBytes { left in
            b.withUnsafeBytes { right in
                guard let l = left.baseAddress, let r = right.baseAddress else { return left.count < right.count }
                let order = memcmp(l, r, min(left.count, right.count))
                return order != 0 ? order < 0 : left.count < right.count
            }
        }
    }

    struct Occurrence: Equatable {
        let position: Int
        let byteRange: Range<Int>
    }

    /// Occurrences of one term in one property, encoded as they are added.
    struct OccurrenceList {
        private var count = 0
        private var bytes: [UInt8] = []

        mutating func append(position: Int, byteRange: Range<Int>) {
            count += 1
            appendVarint(UInt64(position), to: &bytes)
            appendVarint(UInt64(byteRange.lowerBound), to: &bytes)
            appendVarint(UInt64(byteRange.count), to: &bytes)
        }

        /// The posting value: the document's length, the count, then the occurrences.
        func encoded(documentLength: Int) -> [UInt8] {
            var out: [UInt8] = []
            out.reserveCapacity(bytes.count + 10)
            appendVarint(UInt64(documentLength), to: &out)
            appendVarint(UInt64(count), to: &out)
            out += bytes
            return out
        }
    }

    /// A posting value's document length and occurrence count, without the occurrences.
    static func decodePostingHeader(_ bytes: [UInt8]) throws -> (documentLength: Int, count: Int) {
        var reader = VarintReader(bytes: bytes)
        return (try reader.nextInt(), try reader.nextInt())
    }

    /// A posting value: its document's length and the occurrences.
    static func decodePosting(_ bytes: [UInt8]) throws -> (documentLength: Int, occurrences: [Occurrence]) {
        var reader = VarintReader(bytes: bytes)
        let documentLength = try reader.nextInt()
        let count = try reader.next()
        guard count <= UInt64(bytes.count) else { throw TextAnalysisError("full-text posting is damaged") }
        var occurrences: [Occurrence] = []
        occurrences.reserveCapacity(Int(count))
        for _ in 0..<count {
            let position = try reader.nextInt(), start = try reader.nextInt(), length = try reader.nextInt()
            guard start <= Int.max - length else { throw TextAnalysisError("full-text posting is damaged") }
            occurrences.append(Occurrence(position: position, byteRange: start..<(start + length)))
        }
        return (documentLength, occurrences)
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

    static func appendVarint(_ value: UInt64, to out: inout [UInt8]) {
        var value = value
        while value >= 0x80 {
            out.append(UInt8(value & 0x7F) | 0x80)
            value >>= 7
        }
        out.append(UInt8(value))
    }

    struct VarintReader {
        let bytes: [UInt8]
        var offset = 0
        var isAtEnd: Bool { offset >= bytes.count }

        mutating func nextInt() throws -> Int {
            guard let value = Int(exactly: try next()) else {
                throw TextAnalysisError("full-text index data is damaged (a number is out of range)")
            }
            return value
        }

        mutating func next() throws -> UInt64 {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while offset < bytes.count, shift < 64 {
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
