import LiteStorage

/// Writes a term's postings into its blocks (``FullTextPostingBlock``) in a byte-key store:
/// each block a changed document falls in is read, merged with the changes and written back
/// (split when it outgrows ``FullTextPostingBlock/targetBytes``).
enum FullTextTermBlocks {
    /// Merges `documents` (in ID order; an empty part removes the document) into `term`'s
    /// blocks. `knownEmpty`: the term has no blocks yet (a rebuild's first round), so nothing
    /// is looked up.
    static func merge(term: [UInt8], documents: [(id: [UInt8], part: ArraySlice<UInt8>)],
                      into store: any ByteKeyStore, knownEmpty: Bool) throws {
        guard !documents.isEmpty else { return }
        if knownEmpty {
            try write(term: term, documents[...], replacing: nil, existing: nil, into: store)
            return
        }
        let prefix = FullTextPostings.blockKey(term: term, firstDocumentID: [])
        let end = ByteKeyRange.successor(ofPrefix: prefix)
        var next = 0
        while next < documents.count {
            let id = documents[next].id
            // The block holding `id`: the last one starting at or before it, else the first.
            var block = try first(in: ByteKeyRange(lower: prefix, upper: prefix + id + [0x00]), descending: true, store)
            if block == nil { block = try first(in: ByteKeyRange(lower: prefix, upper: end), descending: false, store) }
            // The documents before the following block's first go into this one.
            var stop = documents.count
            if let block, let following = try first(in: ByteKeyRange(lower: block.key + [0x00], upper: end),
                                                     descending: false, store) {
                let limit = Array(following.key[prefix.count...])
                stop = next
                while stop < documents.count, FullTextPostings.precedes(documents[stop].id, limit) { stop += 1 }
                stop = max(stop, next + 1)
            }
            try write(term: term, documents[next..<stop], replacing: block?.key, existing: block?.value, into: store)
            next = stop
        }
    }

    private static func first(in range: ByteKeyRange, descending: Bool, _ store: any ByteKeyStore) throws -> ByteKeyEntry? {
        let cursor = try store.scan(range, descending: descending)
        defer { cursor.close() }
        return try cursor.next()
    }

    /// Merges `changes` into the block `existing` (stored under `oldKey`) and writes the result
    /// as one or more blocks.
    private static func write(term: [UInt8], _ changes: ArraySlice<(id: [UInt8], part: ArraySlice<UInt8>)>,
                              replacing oldKey: [UInt8]?, existing: [UInt8]?, into store: any ByteKeyStore) throws {
        var blocks: [FullTextPostingBlock.Writer] = []
        var writer = FullTextPostingBlock.Writer()
        func add(_ id: [UInt8], _ part: ArraySlice<UInt8>) {
            guard !part.isEmpty else { return }   // a removal
            if writer.isFull {
                blocks.append(writer)
                writer = FullTextPostingBlock.Writer()
            }
            writer.append(documentID: id, part: part)
        }
        var change = changes.startIndex
        if let existing {
            var reader = FullTextPostingBlock.Reader(existing)
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
        if !writer.isEmpty { blocks.append(writer) }
        var keptOldKey = false
        for block in blocks {
            guard let first = block.firstDocumentID else { continue }
            let key = FullTextPostings.blockKey(term: term, firstDocumentID: first)
            if key == oldKey { keptOldKey = true }
            try store.put(key, block.bytes)
        }
        if let oldKey, !keptOldKey { try store.delete(oldKey) }
    }
}
