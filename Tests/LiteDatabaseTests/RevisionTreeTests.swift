import Testing
import TestSupport
@testable import LiteDatabase

@Suite(.ownThreads) struct RevisionTreeTests {
    private func id(_ text: String) throws -> RevisionID { try RevisionID(parsing: text) }

    @Test func decodesATreeWrittenByCouchbaseLite() throws {
        // kv_default.body of doc-001 in shared/fixtures/v2/upgrade_2.7.cblite2 (sequence 1).
        let raw = bytes(fromHex: "00000018FFFF820301ABCD0070020000000100013400800500000000")
        let tree = try RevisionTree(encoded: raw, recordSequence: 1)
        #expect(tree.count == 1)
        let current = try #require(tree.current)
        #expect(current.id.string == "1-abcd")
        #expect(current.isLeaf && !current.isDeleted)
        #expect(current.sequence == 1)
        #expect(current.body == bytes(fromHex: "700200000001000134008005"))
    }

    @Test func reencodingADecodedTreeGivesTheSameBytes() throws {
        let raw = bytes(fromHex: "00000018FFFF820301ABCD0070020000000100013400800500000000")
        let tree = try RevisionTree(encoded: raw, recordSequence: 0)
        #expect(try tree.encoded() == raw)
    }

    @Test func newRevisionsBecomeCurrentAndOldBodiesAreDropped() throws {
        var tree = RevisionTree()
        try tree.insert(id("1-aa"), body: [0x70, 0x00], parent: nil)
        tree.markSaved(sequence: 1)
        try tree.insert(id("2-bb"), body: [0x30, 0x00], parent: id("1-aa"))
        tree.removeNonLeafBodies()
        tree.markSaved(sequence: 2)
        let decoded = try RevisionTree(encoded: try tree.encoded(), recordSequence: 2)
        #expect(decoded.current?.id == (try id("2-bb")))
        #expect(decoded.current?.body == [0x30, 0x00])
        #expect(decoded.revision(try id("1-aa"))?.body == nil)
        #expect(decoded.revision(try id("1-aa"))?.sequence == 1)
        #expect(decoded.history(from: 0).map(\.id.string) == ["2-bb", "1-aa"])
        #expect(try decoded.encoded() == tree.encoded())
    }

    @Test func branchingFromANonLeafIsAConflictUnlessAllowed() throws {
        var tree = RevisionTree()
        try tree.insert(id("1-aa"), body: [], parent: nil)
        try tree.insert(id("2-bb"), body: [], parent: id("1-aa"))
        #expect(throws: DatabaseError.self) { try tree.insert(id("2-cc"), body: [], parent: id("1-aa")) }
        try tree.insert(id("2-cc"), body: [], parent: id("1-aa"), allowConflict: true)
        #expect(tree.hasConflict)
        #expect(tree.leaves.count == 2)
    }

    @Test func higherRevisionWinsAndDeletedLosesToLive() throws {
        var tree = RevisionTree()
        try tree.insert(id("1-aa"), body: [], parent: nil)
        try tree.insert(id("2-bb"), body: [], parent: id("1-aa"))
        try tree.insert(id("2-cc"), body: [], parent: id("1-aa"), allowConflict: true)
        #expect(tree.current?.id == (try id("2-cc")))
        try tree.insert(id("3-dd"), body: [], deleted: true, parent: id("2-cc"))
        #expect(tree.current?.id == (try id("2-bb")))
        #expect(!tree.hasConflict)
    }

    @Test func generationMustFollowTheParent() throws {
        var tree = RevisionTree()
        try tree.insert(id("1-aa"), body: [], parent: nil)
        #expect(throws: DatabaseError.self) { try tree.insert(id("3-bb"), body: [], parent: id("1-aa")) }
        #expect(throws: DatabaseError.self) { try tree.insert(id("2-bb"), body: [], parent: id("1-ff")) }
    }

    @Test func insertingAnExistingRevisionDoesNothing() throws {
        var tree = RevisionTree()
        try tree.insert(id("1-aa"), body: [], parent: nil)
        #expect(try tree.insert(id("1-aa"), body: [], parent: nil, allowConflict: true) == nil)
        #expect(tree.count == 1)
    }

    @Test func historyInsertAddsMissingAncestorsWithoutBodies() throws {
        var tree = RevisionTree()
        try tree.insert(id("1-aa"), body: [1], parent: nil)
        let added = try tree.insertHistory([id("4-dd"), id("3-cc"), id("2-bb"), id("1-aa")], body: [4])
        #expect(added == 3)
        #expect(tree.current?.id == (try id("4-dd")))
        #expect(tree.history(from: 0).map(\.id.string) == ["4-dd", "3-cc", "2-bb", "1-aa"])
        #expect(tree.revision(try id("3-cc"))?.body == nil)
        #expect(try tree.insertHistory([id("4-dd"), id("3-cc")], body: [4]) == 0)
    }

    @Test func historyWithAGapIsRejected() throws {
        var tree = RevisionTree()
        #expect(throws: DatabaseError.self) { try tree.insertHistory([id("4-dd"), id("2-bb")], body: []) }
    }

    @Test func pruningKeepsTheNewestRevisionsOfEachBranch() throws {
        var tree = RevisionTree()
        var parent: RevisionID?
        for generation in 1...30 {
            let next = RevisionID(generation: UInt64(generation), digest: [UInt8(generation)])
            try tree.insert(next, body: [], parent: parent)
            parent = next
        }
        #expect(tree.prune(maxDepth: 20) == 10)
        #expect(tree.count == 20)
        let last = try #require(parent)
        let history = tree.history(from: try #require(tree.index(of: last)))
        #expect(history.count == 20)
        #expect(history.last?.id.generation == 11)
        #expect(history.last?.parent == nil)
    }

    @Test func purgingALeafRemovesItsUnsharedBranch() throws {
        var tree = RevisionTree()
        try tree.insert(id("1-aa"), body: [], parent: nil)
        try tree.insert(id("2-bb"), body: [], parent: id("1-aa"))
        try tree.insert(id("2-cc"), body: [], parent: id("1-aa"), allowConflict: true)
        try tree.insert(id("3-dd"), body: [], parent: id("2-cc"))
        #expect(tree.purge(try id("3-dd")) == 2)
        #expect(tree.count == 2)
        #expect(!tree.hasConflict)
        #expect(tree.current?.id == (try id("2-bb")))
    }

    @Test func resolvingAConflictRemovesTheLosingBranch() throws {
        var tree = RevisionTree()
        try tree.insert(id("1-aa"), body: [], parent: nil)
        try tree.insert(id("2-bb"), body: [], parent: id("1-aa"))
        try tree.insertHistory([id("3-ee"), id("2-dd"), id("1-aa")], body: [], markConflict: true)
        #expect(tree.hasConflict)
        #expect(tree.revision(try id("3-ee"))?.isConflict == true)
        #expect(tree.current?.id == (try id("2-bb")), "a conflicting branch never wins")
        try tree.resolveConflict(winner: id("3-ee"), loser: id("2-bb"))
        #expect(!tree.hasConflict)
        #expect(tree.current?.id == (try id("3-ee")))
        #expect(tree.revision(try id("2-bb")) == nil)
    }

    @Test func remoteRevisionsSurviveEncodingAndKeepTheirBodies() throws {
        var tree = RevisionTree()
        try tree.insert(id("1-aa"), body: [1, 1], parent: nil)
        tree.setRemoteRevision(1, to: try id("1-aa"))
        try tree.insert(id("2-bb"), body: [2, 2], parent: id("1-aa"))
        tree.removeNonLeafBodies()
        let decoded = try RevisionTree(encoded: try tree.encoded(), recordSequence: 5)
        #expect(decoded.remoteRevision(1)?.id == (try id("1-aa")))
        #expect(decoded.remoteRevision(1)?.body == [1, 1])
    }

    @Test(arguments: [
        "",                                   // empty
        "00000018FFFF820301ABCD00700200",     // truncated revision
        "00000018FFFF820301ABCD007002000000010001340080050000",  // no end marker
        "00000018000082030" + "1ABCD0070020000000100013400800500000000", // parent is itself
        "00000018FFFF820301ABCD007002000000010001340080050000000000010005", // remote index out of range
        "00000005FFFF820301ABCD0070020000000100013400800500000000", // size too small
    ])
    func corruptTreesAreRejected(hex: String) {
        #expect(throws: DatabaseError.self) { try RevisionTree(encoded: bytes(fromHex: hex), recordSequence: 1) }
    }

    /// Parents are stored as 16-bit indexes: a larger tree (a peer can send any history) must
    /// be refused with an error, not trap on the conversion.
    @Test func aTreeTooLargeForTheFormatIsAnErrorNotATrap() throws {
        let count = RevisionTreeCodec.maximumRevisionCount + 2
        let history = (0..<count).reversed().map { generation in
            RevisionID(generation: UInt64(generation + 1), digest: [UInt8](repeating: UInt8(generation & 0xFF), count: 20))
        }
        var tree = RevisionTree()
        #expect(try tree.insertHistory(history, body: StoredDocument.emptyDictionary) == count)
        #expect(throws: DatabaseError.self) { try tree.encoded() }
    }
}
