import LiteSupport
/// LiteCore's binary revision-tree format (the 2.x `body` column).
///
/// Layout: revisions one after another, each `u32be size ‖ u16be parentIndex (0xFFFF = none) ‖
/// u8 flags ‖ u8 revIDLength ‖ revID (binary) ‖ varint sequence ‖ body (when flags & 0x80)`;
/// then a `u32` zero; then `u16be remoteID ‖ u16be revisionIndex` pairs up to the end.
enum RevisionTreeCodec {
    private static let noParent: UInt16 = 0xFFFF
    /// On disk only: this revision carries its body.
    private static let hasBodyFlag: UInt8 = 0x80
    /// Size, parent, flags and revID length.
    private static let fixedHeaderSize = 8

    /// The most revisions a tree can hold: parents are 16-bit indexes and 0xFFFF means none.
    static let maximumRevisionCount = Int(noParent)

    /// - Throws: `DatabaseError` when the tree does not fit the format (more than 65,535
    ///   revisions, a revision ID over 255 bytes, a revision over 4 GiB), never trapping.
    static func encode(_ revisions: [Revision], remotes: [UInt16: Int]) throws -> [UInt8] {
        guard revisions.count <= maximumRevisionCount else {
            throw DatabaseError(.invalidParameter, "a revision tree of \(revisions.count) revisions is too large "
                                + "to store (at most \(maximumRevisionCount)); lower maxRevTreeDepth or resolve conflicts")
        }
        var out: [UInt8] = []
        out.reserveCapacity(revisions.reduce(8 + 4 * remotes.count) {
            $0 + fixedHeaderSize + $1.id.digest.count + 12 + ($1.body?.count ?? 0)
        })
        for revision in revisions {
            let id = revision.id.binary
            let sequence = Varint.encode(revision.sequence)
            let size = fixedHeaderSize + id.count + sequence.count + (revision.body?.count ?? 0)
            guard id.count <= Int(UInt8.max) else {
                throw DatabaseError(.badRevisionID, "revision ID \(revision.id.string.prefix(40))… is too long to store")
            }
            guard let storedSize = UInt32(exactly: size) else {
                throw DatabaseError(.invalidParameter, "revision \(revision.id.string) is too large to store (\(size) bytes)")
            }
            appendBigEndian(storedSize, to: &out)
            appendBigEndian(revision.parent.map { UInt16($0) } ?? noParent, to: &out)
            var flags = revision.flags.subtracting(.new).rawValue
            if revision.body != nil { flags |= hasBodyFlag }
            out.append(flags)
            out.append(UInt8(id.count))
            out += id
            out += sequence
            if let body = revision.body { out += body }
        }
        appendBigEndian(UInt32(0), to: &out)
        for (remote, index) in remotes.sorted(by: { $0.key < $1.key }) {
            appendBigEndian(remote, to: &out)
            appendBigEndian(UInt16(index), to: &out)
        }
        return out
    }

    static func decode(_ bytes: [UInt8], recordSequence: UInt64) throws -> (revisions: [Revision], remotes: [UInt16: Int]) {
        var revisions: [Revision] = []
        var parents: [UInt16] = []
        var position = 0
        while true {
            guard let size = readBigEndian32(bytes, at: position) else {
                throw corrupt("it ends before its end marker")
            }
            if size == 0 { position += 4; break }
            let end = position + Int(size)
            guard Int(size) >= fixedHeaderSize + 2, end <= bytes.count else {
                throw corrupt("a revision's size (\(size)) does not fit the data")
            }
            guard let parent = readBigEndian16(bytes, at: position + 4) else { throw corrupt("truncated") }
            let flags = bytes[position + 6]
            let idLength = Int(bytes[position + 7])
            let idStart = position + fixedHeaderSize
            guard idLength > 0, idStart + idLength < end else {
                throw corrupt("a revision ID's length (\(idLength)) does not fit its revision")
            }
            let id = try RevisionID(binary: bytes[idStart..<(idStart + idLength)])
            var cursor = idStart + idLength
            guard let sequence = try? Varint.read(bytes, at: &cursor, end: end) else {   // allowed: a malformed number, thrown as corrupt just below
                throw corrupt("revision \(id) has a malformed sequence")
            }
            let body: [UInt8]? = flags & hasBodyFlag != 0 ? Array(bytes[cursor..<end]) : nil
            revisions.append(Revision(id: id, flags: RevisionFlags(rawValue: flags & ~hasBodyFlag),
                                      parent: nil, sequence: sequence == 0 ? recordSequence : sequence,
                                      body: body))
            parents.append(parent)
            guard revisions.count < Int(noParent) else { throw corrupt("it has too many revisions") }
            position = end
        }
        for (index, parent) in parents.enumerated() where parent != noParent {
            guard Int(parent) < revisions.count, Int(parent) != index else {
                throw corrupt("revision \(revisions[index].id) has an invalid parent index \(parent)")
            }
            revisions[index].parent = Int(parent)
        }
        var remotes: [UInt16: Int] = [:]
        while position < bytes.count {
            guard let remote = readBigEndian16(bytes, at: position),
                  let index = readBigEndian16(bytes, at: position + 2) else {
                throw corrupt("its remote-revision table is truncated")
            }
            guard remote != 0, Int(index) < revisions.count else {
                throw corrupt("its remote-revision table has an invalid entry")
            }
            remotes[remote] = Int(index)
            position += 4
        }
        try checkAcyclic(revisions)
        return (revisions, remotes)
    }

    /// The current revision's body inside an encoded tree, without decoding the tree: nil when
    /// the current revision is a deletion or has no body. Throws on a malformed first revision.
    static func currentBody(in bytes: UnsafeRawBufferPointer) throws -> UnsafeRawBufferPointer? {
        guard let first = try firstRevision(in: bytes) else { return nil }
        guard first.flags & hasBodyFlag != 0, first.flags & RevisionFlags.deleted.rawValue == 0 else { return nil }
        return UnsafeRawBufferPointer(rebasing: bytes[first.body])
    }

    /// The current revision of an encoded tree, without decoding the others: its ID, its flags
    /// and its body (nil when it is stored without one). Nil for an empty tree; throws when the
    /// first revision is malformed. The rest of the tree is not looked at: a save decodes it whole.
    static func currentRevision(in bytes: UnsafeRawBufferPointer) throws
        -> (id: RevisionID, flags: RevisionFlags, body: UnsafeRawBufferPointer?)? {
        guard let first = try firstRevision(in: bytes) else { return nil }
        let id = try RevisionID(binary: UnsafeRawBufferPointer(rebasing: bytes[first.id]))
        let body = first.flags & hasBodyFlag != 0 ? UnsafeRawBufferPointer(rebasing: bytes[first.body]) : nil
        return (id, RevisionFlags(rawValue: first.flags & ~hasBodyFlag), body)
    }

    /// Where the first (current) revision's parts are: its stored flags, the binary ID and what
    /// follows the sequence (the body, when the flags say there is one). Nil for an empty tree.
    private static func firstRevision(in bytes: UnsafeRawBufferPointer) throws
        -> (flags: UInt8, id: Range<Int>, body: Range<Int>)? {
        guard bytes.count >= 4 else { throw corrupt("it ends before its end marker") }
        let size = Int(bytes[0]) << 24 | Int(bytes[1]) << 16 | Int(bytes[2]) << 8 | Int(bytes[3])
        if size == 0 { return nil }
        guard size >= fixedHeaderSize + 2, size <= bytes.count else {
            throw corrupt("a revision's size (\(size)) does not fit the data")
        }
        let idLength = Int(bytes[7])
        let idEnd = fixedHeaderSize + idLength
        guard idLength > 0, idEnd < size else {
            throw corrupt("a revision ID's length (\(idLength)) does not fit its revision")
        }
        var cursor = idEnd
        while cursor < size, bytes[cursor] & 0x80 != 0 { cursor += 1 }   // the sequence's varint
        cursor += 1
        guard cursor <= size else { throw corrupt("the current revision has a malformed sequence") }
        return (bytes[6], fixedHeaderSize..<idEnd, cursor..<size)
    }

    /// A parent chain longer than the tree means a cycle, which would hang history walks.
    private static func checkAcyclic(_ revisions: [Revision]) throws {
        var depthKnown = [Bool](repeating: false, count: revisions.count)
        for start in revisions.indices where !depthKnown[start] {
            var visited: [Int] = []
            var next: Int? = start
            while let current = next, !depthKnown[current] {
                if visited.count > revisions.count { throw corrupt("its parent links form a cycle") }
                visited.append(current)
                next = revisions[current].parent
            }
            for index in visited { depthKnown[index] = true }
        }
    }

    private static func corrupt(_ reason: String) -> DatabaseError {
        DatabaseError(.corruptRevisionData, "the document's revision tree is corrupt: \(reason)")
    }

    private static func appendBigEndian<T: FixedWidthInteger>(_ value: T, to out: inout [UInt8]) {
        withUnsafeBytes(of: value.bigEndian) { out.append(contentsOf: $0) }
    }

    private static func readBigEndian16(_ bytes: [UInt8], at position: Int) -> UInt16? {
        guard position >= 0, position + 2 <= bytes.count else { return nil }
        return UInt16(bytes[position]) << 8 | UInt16(bytes[position + 1])
    }

    private static func readBigEndian32(_ bytes: [UInt8], at position: Int) -> UInt32? {
        guard position >= 0, position + 4 <= bytes.count else { return nil }
        return bytes[position..<(position + 4)].reduce(0) { $0 << 8 | UInt32($1) }
    }
}
