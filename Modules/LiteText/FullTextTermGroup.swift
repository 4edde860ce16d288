import LiteStorage

/// Rare terms' postings packed together (format 4): a term whose postings are small shares
/// one store entry with the other small terms that begin with the same three bytes, instead of
/// taking a B-tree entry of its own. Key `0x05` + the terms' first ``prefixLength`` bytes (the
/// whole term when shorter); the value is the terms in byte order, each: varint bytes shared
/// with the previous term, varint suffix length, the suffix, varint postings length, then its
/// postings as a block holds them (``FullTextPostingBlock``, no directory).
///
/// A term is either in its group or has blocks of its own (``FullTextTermBlocks``), never both;
/// once it has blocks it keeps them. Written into an empty index, which terms are packed
/// depends only on their postings (``pack(_:)``), so a rebuild and a transaction merging the
/// same documents write the same entries.
enum FullTextTermGroup {
    /// How many leading bytes of a term name its group: three give about one group per two
    /// or three rare terms of prose (the hotels' 2,600 rare terms make 1,215 groups).
    static let prefixLength = 3
    /// A term is packed when its postings take at most this many bytes (a handful of documents).
    static let packedTermBytes = 256
    /// A group is kept under a quarter of a 4 KB page, so a B-tree keeps it inside its page
    /// (a larger value spills into a page of its own, mostly empty) and rewriting it on an
    /// update is cheap; terms past it get blocks of their own.
    static let targetBytes = 1_000

    /// One packed term: its bytes and its postings.
    struct Member {
        var term: [UInt8]
        var postings: ArraySlice<UInt8>
    }

    /// The key of the group `term` belongs in.
    static func key<Term: Collection<UInt8>>(ofTerm term: Term) -> [UInt8] {
        [0x05] + term.prefix(prefixLength)
    }

    /// Splits members (in term order, each a term's whole postings) into those packed in the
    /// group and those that get blocks of their own: too big, or past the group's size.
    static func pack(_ members: [Member]) -> (packed: [Member], own: [Member]) {
        var packed: [Member] = [], own: [Member] = []
        var total = 0
        for member in members where !member.postings.isEmpty {
            let size = member.term.count + member.postings.count + 4
            if member.postings.count <= packedTermBytes, total + size <= targetBytes {
                packed.append(member)
                total += size
            } else {
                own.append(member)
            }
        }
        return (packed, own)
    }

    /// The group's value for `members` (in term order).
    static func encode(_ members: [Member]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(members.reduce(0) { $0 + $1.term.count + $1.postings.count + 4 })
        var previous: [UInt8] = []
        for member in members {
            let limit = min(previous.count, member.term.count)
            var shared = 0
            while shared < limit, previous[shared] == member.term[shared] { shared += 1 }
            FullTextPostings.appendVarint(UInt64(shared), to: &out)
            FullTextPostings.appendVarint(UInt64(member.term.count - shared), to: &out)
            out += member.term[shared...]
            FullTextPostings.appendVarint(UInt64(member.postings.count), to: &out)
            out += member.postings
            previous = member.term
        }
        return out
    }

    /// Calls `body` with each member of a group's value, in term order: its term (valid only
    /// during the call) and where its postings are in `group`. `body` returns false to stop.
    static func forEachMember(in group: [UInt8],
                              _ body: (_ term: UnsafeBufferPointer<UInt8>, _ postings: Range<Int>) throws -> Bool) throws {
        try group.withUnsafeBufferPointer { bytes in
            // A term is never longer than the group it is front-coded in.
            let term = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(bytes.count, 1))
            defer { term.deallocate() }
            var termLength = 0
            var reader = FullTextPostings.UnsafeVarintReader(bytes, from: 0)
            while !reader.isAtEnd {
                let shared = try reader.nextInt(), suffix = try reader.nextInt()
                guard shared <= termLength, suffix <= reader.remaining else { throw FullTextPostingBlock.damaged }
                let tail = reader.take(suffix)
                for index in 0..<tail.count { term[shared + index] = tail[index] }
                termLength = shared + tail.count
                let length = try reader.nextInt()
                guard length <= reader.remaining else { throw FullTextPostingBlock.damaged }
                let start = bytes.count - reader.remaining
                _ = reader.take(length)
                guard try body(UnsafeBufferPointer(rebasing: term[..<termLength]), start..<(start + length)) else { return }
            }
        }
    }

    /// The members of a group's value, in term order.
    static func members(of group: [UInt8]) throws -> [Member] {
        var members: [Member] = []
        try forEachMember(in: group) { term, postings in
            members.append(Member(term: Array(term), postings: group[postings]))
            return true
        }
        return members
    }

    /// Where `term`'s postings are in `group`, if it is packed there.
    static func postings(of term: [UInt8], in group: [UInt8]) throws -> Range<Int>? {
        var found: Range<Int>?
        try forEachMember(in: group) { member, postings in
            if member.elementsEqual(term) {
                found = postings
                return false
            }
            return member.lexicographicallyPrecedes(term)
        }
        return found
    }
}

extension FullTextTermGroup {
    /// Writes the groups of the terms a batch changed: terms come in byte order, so one
    /// group's terms come together; each group is read once (unless the store is known to be
    /// empty) when its first term comes, each term merged with what the group holds as it
    /// comes (a term that outgrows the group gets its blocks at once, so only small postings
    /// wait), and the group packed again and written once.
    struct Writer {
        private let store: any ByteKeyStore
        private let knownEmpty: Bool
        /// The current group: its key, whether it is stored, its stored members not reached
        /// yet (from `nextKept`), and its members so far, in term order.
        private var key: [UInt8]?
        private var isStored = false
        private var kept: [Member] = []
        private var nextKept = 0
        private var members: [Member] = []
        /// The groups' new values (empty: deleted), written by ``finish()`` after the terms'
        /// own blocks: keys `0x05…` sort after those, so every put appends to the B-tree
        /// (puts into the middle of it leave pages half full).
        private var writes: [(key: [UInt8], value: [UInt8])] = []

        init(store: any ByteKeyStore, knownEmpty: Bool) {
            self.store = store
            self.knownEmpty = knownEmpty
        }

        /// Adds a term that has no blocks of its own yet, with all its postings (small enough to pack).
        mutating func add(term: [UInt8], postings: ArraySlice<UInt8>) throws {
            _ = try moveTo(term)
            members.append(Member(term: term, postings: postings))
        }

        /// Adds a term that has no blocks of its own, with changes to its documents (in ID order).
        mutating func add(term: [UInt8], documents: [(id: [UInt8], part: ArraySlice<UInt8>)]) throws {
            let old = try moveTo(term)
            let pieces = try FullTextTermBlocks.merged(old.map { Array($0) }, from: 0, with: documents[...])
            if pieces.count == 1, pieces[0].bytes.count <= FullTextTermGroup.packedTermBytes {
                members.append(Member(term: term, postings: pieces[0].bytes[...]))
            } else {
                try FullTextTermBlocks.write(term: term, pieces: pieces, into: store)
            }
        }

        /// Writes the groups.
        mutating func finish() throws {
            try flush()
            key = nil
            for (key, value) in writes {
                if value.isEmpty { try store.delete(key) } else { try store.put(key, value) }
            }
            writes = []
        }

        /// Makes `term`'s group the current one (reading it), and moves the stored members
        /// before `term` into the new members. - Returns: `term`'s stored postings, if any.
        private mutating func moveTo(_ term: [UInt8]) throws -> ArraySlice<UInt8>? {
            let next = FullTextTermGroup.key(ofTerm: term)
            if next != key {
                try flush()
                key = next
                let stored = knownEmpty ? nil : try store.get(next)
                isStored = stored != nil
                kept = try stored.map { try FullTextTermGroup.members(of: $0) } ?? []
                nextKept = 0
            }
            while nextKept < kept.count, FullTextPostings.precedes(kept[nextKept].term, term) {
                members.append(kept[nextKept])
                nextKept += 1
            }
            guard nextKept < kept.count, kept[nextKept].term == term else { return nil }
            defer { nextKept += 1 }
            return kept[nextKept].postings
        }

        /// Packs and queues the current group.
        private mutating func flush() throws {
            guard let key else { return }
            members += kept[nextKept...]
            defer {
                (kept, nextKept) = ([], 0)
                members.removeAll(keepingCapacity: true)
            }
            let (packed, own) = FullTextTermGroup.pack(members)
            for member in own { try FullTextTermBlocks.write(term: member.term, postings: member.postings, into: store) }
            if !packed.isEmpty {
                writes.append((key, FullTextTermGroup.encode(packed)))
            } else if isStored {
                writes.append((key, []))
            }
        }
    }
}
