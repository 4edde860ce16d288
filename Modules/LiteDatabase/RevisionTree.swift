/// A document's revision tree, as Couchbase Lite 2.x keeps it in the `body` of a record.
///
/// Revisions are kept sorted by priority so that index 0 is the current revision (see
/// `Revision.hasPriority`). Only leaves (and revisions flagged `keepBody`) keep their bodies
/// once saved; the tree is pruned to a maximum depth on save. A map records, per remote
/// database ID, which revision is the latest known on that remote.
///
/// ```swift
/// var tree = RevisionTree()
/// let first = RevisionID.next(after: nil, deleted: false, body: fleece)
/// _ = try tree.insert(first, body: fleece, parent: nil)
/// tree.current?.id == first   // true
/// ```
package struct RevisionTree: Hashable, Sendable {
    /// The revisions, highest priority first once sorted.
    package private(set) var revisions: [Revision] = []
    /// For each remote database ID (from 1), the index of its latest known revision.
    package private(set) var remoteRevisions: [UInt16: Int] = [:]

    /// An empty tree (a document not yet saved).
    package init() {}

    /// The number of revisions.
    package var count: Int { revisions.count }
    /// Whether the tree has no revisions (the document was never saved).
    package var isEmpty: Bool { revisions.isEmpty }

    /// The current (winning) revision. Every change re-sorts the tree, so it is the first.
    package var current: Revision? { revisions.first }

    /// Whether more than one branch ends in a live revision.
    package var hasConflict: Bool {
        var active = 0
        for revision in revisions where revision.isActive {
            active += 1
            if active > 1 { return true }
        }
        return false
    }

    /// The leaf revisions, highest priority first.
    package var leaves: [Revision] { revisions.filter(\.isLeaf) }

    /// The index of a revision, if the tree has it.
    package func index(of id: RevisionID) -> Int? {
        revisions.firstIndex { $0.id == id }
    }

    /// The revision with the given ID, if the tree has it.
    package func revision(_ id: RevisionID) -> Revision? {
        index(of: id).map { revisions[$0] }
    }

    /// The revision saved at `sequence`, if any.
    package func revision(atSequence sequence: UInt64) -> Revision? {
        revisions.first { $0.sequence == sequence }
    }

    /// The revision at `index` followed by its ancestors still in the tree (newest first).
    package func history(from index: Int) -> [Revision] {
        var result: [Revision] = []
        var next: Int? = index
        while let current = next, revisions.indices.contains(current), result.count <= revisions.count {
            result.append(revisions[current])
            next = revisions[current].parent
        }
        return result
    }

    /// The latest revision known to be on a remote database.
    package func remoteRevision(_ remoteID: UInt16) -> Revision? {
        remoteRevisions[remoteID].flatMap { revisions.indices.contains($0) ? revisions[$0] : nil }
    }

    // MARK: - Changing the tree

    /// Adds a child revision of `parent` (nil: a root), as a new leaf.
    ///
    /// - Parameters:
    ///   - allowConflict: when false, the parent must be a leaf (or, for a root, the tree empty).
    /// - Returns: the index of the new revision, or nil when the tree already has `id`.
    /// - Throws: `.conflict` when the insert would branch and that is not allowed; `.notFound`
    ///   for a missing parent; `.badRevisionID` when the generation is not the parent's plus one.
    @discardableResult
    package mutating func insert(
        _ id: RevisionID, body: [UInt8]?, deleted: Bool = false, hasAttachments: Bool = false,
        parent: RevisionID?, allowConflict: Bool = false, markConflict: Bool = false
    ) throws -> Int? {
        if index(of: id) != nil { return nil }
        var parentIndex: Int?
        if let parent {
            guard let found = index(of: parent) else {
                throw DatabaseError(.notFound, "parent revision \(parent) of \(id) is not in the document's history")
            }
            if !allowConflict && !revisions[found].isLeaf {
                throw DatabaseError(.conflict, "revision \(parent) already has a child; saving \(id) would create a conflict")
            }
            parentIndex = found
        } else if !allowConflict && !revisions.isEmpty {
            throw DatabaseError(.conflict, "the document already exists; \(id) has no parent")
        }
        let parentGeneration = parentIndex.map { revisions[$0].id.generation } ?? 0
        guard id.generation == parentGeneration + 1 else {
            throw DatabaseError(.badRevisionID, "revision \(id) must have generation \(parentGeneration + 1)")
        }
        let conflict = markConflict && startsBranch(at: parentIndex)
        appendRevision(id, body: body, deleted: deleted, hasAttachments: hasAttachments,
                       parent: parentIndex, conflict: conflict)
        sort()
        return index(of: id)
    }

    /// Adds a revision with its history (newest first), as received from a peer: ancestors the
    /// tree lacks are added without bodies.
    ///
    /// - Returns: how many entries of `history` were new (0 when the tree already had it).
    @discardableResult
    package mutating func insertHistory(
        _ history: [RevisionID], body: [UInt8]?, deleted: Bool = false, hasAttachments: Bool = false,
        markConflict: Bool = false
    ) throws -> Int {
        guard let newest = history.first else {
            throw DatabaseError(.invalidParameter, "a revision history must contain at least one revision")
        }
        var commonIndex: Int?
        var newCount = 0
        for (position, id) in history.enumerated() {
            if position > 0 && id.generation != history[position - 1].generation - 1 {
                throw DatabaseError(.badRevisionID,
                                    "revision history of \(newest) is not consecutive at \(id)")
            }
            if let found = index(of: id) { commonIndex = found; break }
            newCount += 1
        }
        if newCount == 0 { return 0 }
        let conflict = markConflict && startsBranch(at: commonIndex)
        var parent = commonIndex
        for position in stride(from: newCount - 1, to: 0, by: -1) {
            parent = appendRevision(history[position], body: nil, deleted: false, hasAttachments: false,
                                    parent: parent, conflict: conflict)
        }
        appendRevision(newest, body: body, deleted: deleted, hasAttachments: hasAttachments,
                       parent: parent, conflict: conflict)
        sort()
        return newCount
    }

    /// Removes revisions deeper than `maxDepth` below any leaf (keeping revisions flagged
    /// `keepBody` and remotes' current revisions). Returns how many were removed.
    @discardableResult
    package mutating func prune(maxDepth: Int) -> Int {
        guard maxDepth > 0, revisions.count > maxDepth else { return 0 }
        let protected = Set(remoteRevisions.values)
        var doomed = Set<Int>()
        for leaf in revisions.indices where revisions[leaf].isLeaf {
            var depth = 0
            var next: Int? = leaf
            while let current = next, depth <= revisions.count {
                depth += 1
                if depth > maxDepth && !revisions[current].flags.contains(.keepBody) && !protected.contains(current) {
                    doomed.insert(current)
                }
                next = revisions[current].parent
            }
        }
        remove(doomed)
        return doomed.count
    }

    /// Removes a leaf and every ancestor that no other leaf shares. Returns how many were removed.
    @discardableResult
    package mutating func purge(_ leafID: RevisionID) -> Int {
        guard var index = index(of: leafID), revisions[index].isLeaf else { return 0 }
        var doomed = Set<Int>()
        while true {
            doomed.insert(index)
            guard let parent = revisions[index].parent else { break }
            let hasOtherChild = revisions.indices.contains { $0 != index && !doomed.contains($0) && revisions[$0].parent == parent }
            if hasOtherChild { break }
            index = parent
        }
        remove(doomed)
        // Parents whose only children were removed become leaves again.
        for candidate in revisions.indices where !revisions.contains(where: { $0.parent == candidate }) {
            revisions[candidate].flags.insert(.leaf)
        }
        sort()
        return doomed.count
    }

    /// Records `id` as the latest revision known on a remote, keeping its body.
    package mutating func setRemoteRevision(_ remoteID: UInt16, to id: RevisionID?) {
        if let old = remoteRevisions.removeValue(forKey: remoteID),
           !remoteRevisions.values.contains(old), revisions.indices.contains(old) {
            revisions[old].flags.remove(.keepBody)
        }
        guard let id, let index = index(of: id) else { return }
        remoteRevisions[remoteID] = index
        revisions[index].flags.insert(.keepBody)
    }

    /// Drops bodies that a saved tree does not keep: those of revisions that are no longer
    /// leaves, unless flagged `keepBody`.
    package mutating func removeNonLeafBodies() {
        for index in revisions.indices where revisions[index].body != nil {
            let flags = revisions[index].flags
            if !flags.contains(.leaf) && !flags.contains(.keepBody) {
                revisions[index].body = nil
            }
        }
    }

    /// Marks the tree as saved at `sequence`: new revisions take that sequence.
    package mutating func markSaved(sequence: UInt64) {
        for index in revisions.indices where revisions[index].isNew {
            revisions[index].flags.remove(.new)
            if revisions[index].sequence == 0 { revisions[index].sequence = sequence }
        }
    }

    /// Resolves a conflict the way Couchbase Lite 2.8 does: the losing branch (from `loser` up to
    /// the common ancestor) is removed; the winner's branch stops being marked as conflicting.
    package mutating func resolveConflict(winner: RevisionID, loser: RevisionID) throws {
        guard let winnerIndex = index(of: winner), revisions[winnerIndex].isLeaf else {
            throw DatabaseError(.notFound, "winning revision \(winner) is not a leaf of the document")
        }
        guard revision(loser)?.isLeaf == true else {
            throw DatabaseError(.notFound, "losing revision \(loser) is not a leaf of the document")
        }
        var next: Int? = winnerIndex
        while let index = next {
            revisions[index].flags.remove(.isConflict)
            next = revisions[index].parent
        }
        purge(loser)
    }

    /// Sorts the revisions by priority (current first), keeping parent links and remote marks.
    private mutating func sort() {
        // Most saves leave the tree in order (a new document's single revision, a child of the
        // current one): the stable sort would keep every index, so the rebuild is skipped.
        if revisions.indices.dropFirst().allSatisfy({ !Revision.hasPriority(revisions[$0], over: revisions[$0 - 1]) }) {
            return
        }
        let order = revisions.indices.sorted { Revision.hasPriority(revisions[$0], over: revisions[$1]) }
        var newIndex = [Int](repeating: 0, count: revisions.count)
        for (new, old) in order.enumerated() { newIndex[old] = new }
        revisions = order.map { old in
            var revision = revisions[old]
            revision.parent = revision.parent.map { newIndex[$0] }
            return revision
        }
        remoteRevisions = remoteRevisions.mapValues { newIndex[$0] }
    }

    // MARK: - Private

    /// Whether a new child of `parent` (nil: a new root) starts or extends a conflicting branch:
    /// its parent is not a leaf or is itself conflicting, or it is a second root (LiteCore's
    /// rule). Deleted leaves count: a pulled revision that forks below a local deletion, or a
    /// pulled deletion whose history does not reach the local tree, is a conflict to resolve.
    /// Counting only live leaves let such a fork go unresolved and the wrong branch win
    /// (deletions and updates undone in the soak test).
    private func startsBranch(at parent: Int?) -> Bool {
        guard let parent else { return !revisions.isEmpty }
        return !revisions[parent].isLeaf || revisions[parent].isConflict
    }

    @discardableResult
    private mutating func appendRevision(
        _ id: RevisionID, body: [UInt8]?, deleted: Bool, hasAttachments: Bool, parent: Int?, conflict: Bool
    ) -> Int {
        // From raw values: an array literal of flags goes through the generic `SetAlgebra` initializer.
        var flags = RevisionFlags(rawValue: RevisionFlags.leaf.rawValue | RevisionFlags.new.rawValue)
        if deleted { flags.insert(.deleted) }
        if hasAttachments { flags.insert(.hasAttachments) }
        if conflict { flags.insert(.isConflict) }
        if let parent { revisions[parent].flags.remove(.leaf) }
        revisions.append(Revision(id: id, flags: flags, parent: parent, sequence: 0, body: body))
        return revisions.count - 1
    }

    /// Removes the revisions at `doomed`, renumbering parents (links to removed ones are cleared).
    private mutating func remove(_ doomed: Set<Int>) {
        guard !doomed.isEmpty else { return }
        var newIndex = [Int?](repeating: nil, count: revisions.count)
        var next = 0
        for index in revisions.indices where !doomed.contains(index) {
            newIndex[index] = next
            next += 1
        }
        revisions = revisions.indices.compactMap { index in
            guard !doomed.contains(index) else { return nil }
            var revision = revisions[index]
            revision.parent = revision.parent.flatMap { newIndex[$0] }
            return revision
        }
        remoteRevisions = remoteRevisions.compactMapValues { newIndex[$0] }
    }

    fileprivate mutating func adopt(revisions: [Revision], remotes: [UInt16: Int]) {
        self.revisions = revisions
        self.remoteRevisions = remotes
        sort()
    }
}

extension RevisionTree {
    /// Decodes a tree from LiteCore's binary form (the `body` column of a 2.x record); revisions
    /// stored with sequence 0 take `recordSequence`.
    package init(encoded bytes: [UInt8], recordSequence: UInt64) throws {
        let decoded = try RevisionTreeCodec.decode(bytes, recordSequence: recordSequence)
        self.init()
        adopt(revisions: decoded.revisions, remotes: decoded.remotes)
    }

    /// Encodes the tree in LiteCore's binary form, sorted so the current revision comes first.
    package func encoded() throws -> [UInt8] {
        try RevisionTreeCodec.encode(revisions, remotes: remoteRevisions)
    }
}
