/// One block of a term's postings: consecutive documents in document-ID (byte) order. Per
/// document:
///
/// - varint bytes shared with the previous document's ID, varint suffix length, the suffix
///   (front coding: sequential or common-prefix IDs take a few bytes);
/// - varint length of the document's part, then the part: varint document
///   length (its indexed words in all properties, for BM25 without another read), then per
///   property holding the term: varint column, varint occurrence count, varint byte length of
///   the occurrences, the occurrences (per occurrence varint position and byte-start deltas from
///   the previous one's, then the byte length; see ``FullTextDocumentTerms``) — so a reader that
///   only counts skips them.
///
/// A term's first block (key `0x01 term 0x00`) starts with a directory (``Directory``): where
/// each of its other blocks starts, so an update finds the block a document falls in with
/// point reads only (a scan inside a RocksDB transaction costs a pass over its pending writes).
/// A block holds the documents from its start up to the next block's start, and is closed once
/// it passes ``targetBytes``; a document is never split across blocks.
enum FullTextPostingBlock {
    /// The size past which a block is closed. Small enough that rewriting one on an update is
    /// cheap, big enough that a common term's postings take few store entries.
    static let targetBytes = 4_096

    /// Encodes documents in ID order.
    struct Writer {
        private(set) var bytes: [UInt8] = []
        /// The last document's ID: where it is in `bytes` when it was written whole (most
        /// terms have one document: no copy of it), else a copy in `lastDocumentID`.
        private var lastWholeID: Range<Int>?
        private var lastDocumentID: [UInt8] = []

        var isEmpty: Bool { bytes.isEmpty }

        /// The first document's ID, read back from the bytes (written whole: a zero shared
        /// count, its length, the ID), so a term's postings cost no array of their own for it.
        var firstDocumentID: [UInt8]? {
            guard bytes.first == 0 else { return nil }
            var offset = 1
            let length = trustedVarint(bytes, &offset)
            guard length >= 0, length <= bytes.count - offset else { return nil }
            return Array(bytes[offset..<(offset + length)])
        }

        /// Whether the next document should start another block.
        var isFull: Bool { bytes.count >= FullTextPostingBlock.targetBytes }

        /// A writer for about `expectedBytes` of postings (at most a block's worth is reserved).
        init(expectedBytes: Int = FullTextPostingBlock.targetBytes) {
            bytes.reserveCapacity(min(expectedBytes, FullTextPostingBlock.targetBytes) + 256)
        }

        /// Appends a document's part (its ID sorts after the previous one's).
        mutating func append<ID: RandomAccessCollection<UInt8>, Part: Collection<UInt8>>(documentID: ID, part: Part)
            where ID.Index == Int {
            var shared = 0
            let idStart = documentID.startIndex
            if let whole = lastWholeID {
                let limit = min(documentID.count, whole.count)
                while shared < limit, documentID[idStart + shared] == bytes[whole.lowerBound + shared] { shared += 1 }
            } else if !bytes.isEmpty {
                let limit = min(documentID.count, lastDocumentID.count)
                while shared < limit, documentID[idStart + shared] == lastDocumentID[shared] { shared += 1 }
            }
            let suffix = documentID.count - shared
            let start = bytes.count
            // Measured, then written and appended in one go: five appends per document, each
            // checking the array's uniqueness and capacity, were most of a rebuild's block writing.
            let partCount = part.count
            let idOffset = start + FullTextPostings.varintSize(UInt64(shared)) + FullTextPostings.varintSize(UInt64(suffix))
            let size = idOffset - start + suffix + FullTextPostings.varintSize(UInt64(partCount)) + partCount
            FullTextPostings.append(size, to: &bytes) { out in
                var offset = 0
                FullTextPostings.writeVarint(UInt64(shared), to: out, at: &offset)
                FullTextPostings.writeVarint(UInt64(suffix), to: out, at: &offset)
                for index in 0..<suffix { out[offset + index] = documentID[idStart + shared + index] }
                offset += suffix
                FullTextPostings.writeVarint(UInt64(partCount), to: out, at: &offset)
                for byte in part {
                    out[offset] = byte
                    offset += 1
                }
                return offset
            }
            if shared == 0 {
                lastWholeID = idOffset..<(idOffset + suffix)
            } else {
                // Front-coded: a copy into the writer's own buffer (no reference to the caller's is kept).
                lastWholeID = nil
                lastDocumentID.removeAll(keepingCapacity: true)
                lastDocumentID += documentID
            }
        }
    }

    /// Reads a block's documents in order, reusing one document-ID buffer.
    struct Reader {
        let bytes: [UInt8]
        private var offset = 0
        /// The current document's ID.
        private(set) var documentID: [UInt8] = []
        /// Where the current document's part is in ``bytes``.
        private(set) var part: Range<Int> = 0..<0

        /// Reads `bytes` from `offset` (past a first block's directory).
        init(_ bytes: [UInt8], from offset: Int = 0) {
            self.bytes = bytes
            self.offset = offset
        }

        /// Moves to the next document; false at the end of the block.
        mutating func next() throws -> Bool {
            guard offset < bytes.count else { return false }
            var reader = FullTextPostings.VarintReader(bytes: bytes, offset: offset)
            let shared = try reader.nextInt(), suffix = try reader.nextInt()
            guard shared <= documentID.count, suffix <= bytes.count - reader.offset else { throw FullTextPostingBlock.damaged }
            documentID.removeSubrange(shared...)
            documentID += bytes[reader.offset..<(reader.offset + suffix)]
            reader.offset += suffix
            let length = try reader.nextInt()
            guard length <= bytes.count - reader.offset else { throw FullTextPostingBlock.damaged }
            part = reader.offset..<(reader.offset + length)
            offset = reader.offset + length
            return true
        }
    }

    /// The start (first document ID) of each of a term's blocks after the first, ascending,
    /// front-coded at the beginning of the first block: varint count, then per start varint
    /// shared bytes, varint suffix length, suffix.
    struct Directory: Equatable {
        var starts: [[UInt8]] = []

        /// Reads the directory at the beginning of a first block. - Returns: it and where the
        /// postings begin.
        static func read(_ bytes: [UInt8]) throws -> (Directory, postings: Int) {
            var reader = FullTextPostings.VarintReader(bytes: bytes)
            let count = try reader.nextInt()
            guard count <= bytes.count else { throw FullTextPostingBlock.damaged }
            var starts: [[UInt8]] = []
            starts.reserveCapacity(count)
            var previous: [UInt8] = []
            for _ in 0..<count {
                let shared = try reader.nextInt(), suffix = try reader.nextInt()
                guard shared <= previous.count, suffix <= bytes.count - reader.offset else { throw FullTextPostingBlock.damaged }
                previous = Array(previous[..<shared]) + bytes[reader.offset..<(reader.offset + suffix)]
                reader.offset += suffix
                starts.append(previous)
            }
            return (Directory(starts: starts), reader.offset)
        }

        /// Where the postings of a first block begin (its directory skipped, nothing kept).
        static func postingsOffset(_ bytes: [UInt8]) throws -> Int {
            try summary(bytes).postings
        }

        /// How many other blocks a first block's directory lists, and where its postings begin.
        static func summary(_ bytes: [UInt8]) throws -> (otherBlocks: Int, postings: Int) {
            var reader = FullTextPostings.VarintReader(bytes: bytes)
            let count = try reader.nextInt()
            for _ in 0..<min(count, bytes.count) {
                _ = try reader.next()
                let suffix = try reader.nextInt()
                guard suffix <= bytes.count - reader.offset else { throw FullTextPostingBlock.damaged }
                reader.offset += suffix
            }
            return (count, reader.offset)
        }

        func encoded() -> [UInt8] {
            var out: [UInt8] = []
            FullTextPostings.appendVarint(UInt64(starts.count), to: &out)
            var previous: [UInt8] = []
            for start in starts {
                var shared = 0
                while shared < min(start.count, previous.count), start[shared] == previous[shared] { shared += 1 }
                FullTextPostings.appendVarint(UInt64(shared), to: &out)
                FullTextPostings.appendVarint(UInt64(start.count - shared), to: &out)
                out += start[shared...]
                previous = start
            }
            return out
        }
    }

    /// Calls `body` with each document of the postings at `postings` in `block` (past a first
    /// block's directory, or one term's in a group): its ID and its part, both valid only
    /// during the call.
    /// Reads the block in place; the front-coded IDs are rebuilt in one raw buffer (an array
    /// trimmed and appended to per document cost a tenth of a single-term search).
    static func forEachDocument(in block: [UInt8], postings: Range<Int>,
                                _ body: (_ id: UnsafeBufferPointer<UInt8>, _ part: UnsafeBufferPointer<UInt8>) throws -> Void) throws {
        guard postings.lowerBound >= 0, postings.upperBound <= block.count else { throw damaged }
        try block.withUnsafeBufferPointer { whole in
            let bytes = UnsafeBufferPointer(rebasing: whole[postings])
            // An ID is never longer than the block it is front-coded in: its bytes are suffixes read from it.
            let id = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(bytes.count, 1))
            defer { id.deallocate() }
            var idLength = 0
            var reader = FullTextPostings.UnsafeVarintReader(bytes, from: 0)
            while !reader.isAtEnd {
                let shared = try reader.nextInt(), suffix = try reader.nextInt()
                guard shared <= idLength, suffix <= reader.remaining else { throw damaged }
                let tail = reader.take(suffix)
                // Byte by byte: a suffix is a few bytes, less than a call to memmove costs.
                for index in 0..<tail.count { id[shared + index] = tail[index] }
                idLength = shared + tail.count
                let length = try reader.nextInt()
                guard length <= reader.remaining else { throw damaged }
                let part = reader.take(length)
                try body(UnsafeBufferPointer(rebasing: id[..<idLength]), part)
            }
        }
    }

    /// Reads a document's part in place: calls `body` with each property
    /// holding the term — its column, occurrence count and encoded occurrences.
    /// - Returns: the document's indexed length.
    static func readPart(_ part: UnsafeBufferPointer<UInt8>,
                         _ body: (_ column: Int, _ count: Int, _ occurrences: UnsafeBufferPointer<UInt8>) throws -> Void) throws -> Int {
        var reader = FullTextPostings.UnsafeVarintReader(part, from: 0)
        let documentLength = try reader.nextInt()
        while !reader.isAtEnd {
            let column = try reader.nextInt(), count = try reader.nextInt(), length = try reader.nextInt()
            guard length <= reader.remaining else { throw damaged }
            try body(column, count, reader.take(length))
        }
        return documentLength
    }

    static let damaged = TextAnalysisError("full-text index data is damaged (a posting block cannot be read)")
}
