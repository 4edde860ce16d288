import LiteStorage

/// Writes a term's postings into its blocks (``FullTextPostingBlock``) in a byte-key store:
/// the first block's directory says which block each changed document falls in; each such
/// block is read, merged with the changes and written back (split when it outgrows
/// ``FullTextPostingBlock/targetBytes``, the new pieces named by their first documents). Point
/// reads and writes only, no scans.
enum FullTextTermBlocks {
    /// Merges `documents` (in ID order; an empty part removes the document) into `term`'s
    /// blocks, whose first block (already read by the caller) is `first`.
    static func merge(term: [UInt8], documents: [(id: [UInt8], part: ArraySlice<UInt8>)],
                      into store: any ByteKeyStore, first: [UInt8]?, in txn: borrowing WriteTransaction) throws {
        guard !documents.isEmpty else { return }
        let firstKey = FullTextPostings.blockKey(term: term, firstDocumentID: [])
        var directory = FullTextPostingBlock.Directory()
        var firstPostings = 0
        if let first { (directory, firstPostings) = try FullTextPostingBlock.Directory.read(first) }
        let oldDirectory = directory
        // Block i (0: the first) holds the documents from starts[i - 1] up to starts[i].
        var blocks: [(start: [UInt8]?, bytes: [UInt8]?)] = [(nil, first)]
        for start in directory.starts { blocks.append((start, nil)) }
        var rewritten: [Int: [FullTextPostingBlock.Writer]] = [:]
        var next = 0
        for index in blocks.indices where next < documents.count {
            var stop = next
            if index + 1 < blocks.count, let limit = blocks[index + 1].start {
                while stop < documents.count, FullTextPostings.precedes(documents[stop].id, limit) { stop += 1 }
            } else {
                stop = documents.count
            }
            guard stop > next else { continue }
            var existing = blocks[index].bytes
            var from = index == 0 ? firstPostings : 0
            if index > 0, let start = blocks[index].start {
                existing = try store.get(FullTextPostings.blockKey(term: term, firstDocumentID: start))
                from = 0
            }
            rewritten[index] = try merged(existing, from: from, with: documents[next..<stop])
            next = stop
        }
        // The new directory: every kept block's start, and the starts of pieces split off.
        var starts: [[UInt8]] = []
        var writes: [(key: [UInt8], value: [UInt8])] = []
        var deletes: [[UInt8]] = []
        var firstValue: [UInt8] = []
        for (index, block) in blocks.enumerated() {
            guard let pieces = rewritten[index] else {
                if let start = block.start { starts.append(start) }
                continue
            }
            for (number, piece) in pieces.enumerated() {
                // The first piece keeps the block's key (its range start); later ones are named by their first document.
                if number == 0 && index == 0 {
                    firstValue = piece.bytes
                    continue
                }
                let start = number == 0 ? block.start : piece.firstDocumentID
                guard let start else { continue }
                starts.append(start)
                writes.append((FullTextPostings.blockKey(term: term, firstDocumentID: start), piece.bytes))
            }
            if pieces.isEmpty, let start = block.start {
                deletes.append(FullTextPostings.blockKey(term: term, firstDocumentID: start))
            }
        }
        directory.starts = starts
        if rewritten[0] != nil || directory != oldDirectory || first == nil {
            if starts.isEmpty && firstValue.isEmpty {
                if first != nil { try store.delete(firstKey, in: txn) }
            } else {
                if rewritten[0] == nil, let first { firstValue = Array(first[firstPostings...]) }
                try store.put(firstKey, directory.encoded() + firstValue, in: txn)
            }
        }
        for (key, value) in writes { try store.put(key, value, in: txn) }
        for key in deletes { try store.delete(key, in: txn) }
    }

    /// Writes the blocks of a term that has none yet (a rebuild's first round), encoded
    /// straight from its postings in ID order: the first piece becomes the first block, behind
    /// the directory of the others' starts — what ``merge(term:documents:into:first:in:)``
    /// writes for the same postings, without reading them back.
    static func write(term: [UInt8], pieces: [FullTextPostingBlock.Writer], into store: any ByteKeyStore,
                      in txn: borrowing WriteTransaction) throws {
        guard let first = pieces.first, !first.isEmpty else { return }
        if pieces.count == 1 { return try write(term: term, postings: first.bytes[...], into: store, in: txn) }
        let rest = pieces.dropFirst().filter { !$0.isEmpty }
        let directory = FullTextPostingBlock.Directory(starts: rest.compactMap(\.firstDocumentID))
        try store.put(FullTextPostings.blockKey(term: term, firstDocumentID: []), directory.encoded() + first.bytes, in: txn)
        for piece in rest {
            guard let start = piece.firstDocumentID else { continue }
            try store.put(FullTextPostings.blockKey(term: term, firstDocumentID: start), piece.bytes, in: txn)
        }
    }

    /// Writes a term that has no blocks yet and whose postings fit one block: an empty
    /// directory (a zero count), then the postings.
    static func write(term: [UInt8], postings: ArraySlice<UInt8>, into store: any ByteKeyStore,
                      in txn: borrowing WriteTransaction) throws {
        var value: [UInt8] = []
        value.reserveCapacity(postings.count + 1)
        value.append(0)
        value += postings
        try store.put(FullTextPostings.blockKey(term: term, firstDocumentID: []), value, in: txn)
    }

    /// The block `existing` (its postings from `from`) merged with `changes`, in pieces of
    /// about ``FullTextPostingBlock/targetBytes`` (none when every document is removed).
    static func merged(_ existing: [UInt8]?, from: Int,
                               with changes: ArraySlice<(id: [UInt8], part: ArraySlice<UInt8>)>) throws -> [FullTextPostingBlock.Writer] {
        var pieces: [FullTextPostingBlock.Writer] = []
        var writer = FullTextPostingBlock.Writer()
        func add(_ id: [UInt8], _ part: ArraySlice<UInt8>) {
            guard !part.isEmpty else { return }   // a removal
            if writer.isFull {
                pieces.append(writer)
                writer = FullTextPostingBlock.Writer()
            }
            writer.append(documentID: id, part: part)
        }
        var change = changes.startIndex
        if let existing {
            var reader = FullTextPostingBlock.Reader(existing, from: from)
            while try reader.next() {
                var order = 1
                while change < changes.endIndex {
                    order = FullTextPostings.compare(changes[change].id, reader.documentID)
                    guard order < 0 else { break }
                    add(changes[change].id, changes[change].part)
                    change += 1
                    order = 1
                }
                if order == 0 {
                    // The change replaces the stored document.
                    add(changes[change].id, changes[change].part)
                    change += 1
                } else {
                    add(reader.documentID, existing[reader.part])
                }
            }
        }
        while change < changes.endIndex {
            add(changes[change].id, changes[change].part)
            change += 1
        }
        if !writer.isEmpty { pieces.append(writer) }
        return pieces
    }
}
