import LiteStorage

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
        /// The groups' new values (empty: deleted), written by ``finish(in:)`` after the terms'
        /// own blocks: keys `0x05…` sort after those, so every put appends to the B-tree
        /// (puts into the middle of it leave pages half full).
        private var writes: [(key: [UInt8], value: [UInt8])] = []

        init(store: any ByteKeyStore, knownEmpty: Bool) {
            self.store = store
            self.knownEmpty = knownEmpty
        }

        /// Adds a term that has no blocks of its own yet, with all its postings (small enough to pack).
        mutating func add(term: [UInt8], postings: ArraySlice<UInt8>, in txn: borrowing WriteTransaction) throws {
            _ = try moveTo(term, in: txn)
            members.append(Member(term: term, postings: postings))
        }

        /// Adds a term that has no blocks of its own, with changes to its documents (in ID order).
        mutating func add(term: [UInt8], documents: [(id: [UInt8], part: ArraySlice<UInt8>)],
                          in txn: borrowing WriteTransaction) throws {
            let old = try moveTo(term, in: txn)
            let pieces = try FullTextTermBlocks.merged(old.map { Array($0) }, from: 0, with: documents[...])
            if pieces.count == 1, pieces[0].bytes.count <= FullTextTermGroup.packedTermBytes {
                members.append(Member(term: term, postings: pieces[0].bytes[...]))
            } else {
                try FullTextTermBlocks.write(term: term, pieces: pieces, into: store, in: txn)
            }
        }

        /// Writes the groups.
        mutating func finish(in txn: borrowing WriteTransaction) throws {
            try flush(in: txn)
            key = nil
            // The groups' keys differ, so deletions and puts need not keep their relative order;
            // the puts go to the store together (a rebuild's thousand groups in a few calls).
            for (key, value) in writes where value.isEmpty { try store.delete(key, in: txn) }
            try store.put(writes.filter { !$0.value.isEmpty }, in: txn)
            writes = []
        }

        /// Makes `term`'s group the current one (reading it), and moves the stored members
        /// before `term` into the new members. - Returns: `term`'s stored postings, if any.
        private mutating func moveTo(_ term: [UInt8], in txn: borrowing WriteTransaction) throws -> ArraySlice<UInt8>? {
            if key.map({ !FullTextTermGroup.isKey($0, ofTerm: term) }) ?? true {
                let next = FullTextTermGroup.key(ofTerm: term)
                try flush(in: txn)
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
        private mutating func flush(in txn: borrowing WriteTransaction) throws {
            guard let key else { return }
            members += kept[nextKept...]
            defer {
                (kept, nextKept) = ([], 0)
                members.removeAll(keepingCapacity: true)
            }
            let (packed, own) = FullTextTermGroup.pack(members)
            for member in own { try FullTextTermBlocks.write(term: member.term, postings: member.postings, into: store, in: txn) }
            if !packed.isEmpty {
                writes.append((key, FullTextTermGroup.encode(packed)))
            } else if isStored {
                writes.append((key, []))
            }
        }
    }
}
