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

    /// Whether `key` is the key of `term`'s group (without making the term's key).
    static func isKey(_ key: [UInt8], ofTerm term: [UInt8]) -> Bool {
        let length = min(prefixLength, term.count)
        guard key.count == length + 1 else { return false }
        for index in 0..<length where key[index + 1] != term[index] { return false }
        return true
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
