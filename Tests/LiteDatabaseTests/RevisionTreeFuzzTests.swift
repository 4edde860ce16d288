import Fleece
import LiteStorage
import Testing
import TestSupport
@testable import LiteDatabase

/// Mutation fuzzing of the revision-tree codec (a document record's body, decoded by
/// `StoredDocument(record:)`) and of the revision IDs and histories a peer sends: every input
/// is refused with a `DatabaseError` or decodes into a tree every accessor can walk, that
/// re-encodes and decodes to the same tree.
@Suite(.ownThreads) struct RevisionTreeFuzzTests {
    /// Encoded trees: the record of a real 2.7 database, a linear history, a conflict with a
    /// deleted branch and remote-revision entries, and a tree with bodies on several leaves.
    static func seeds() throws -> [[UInt8]] {
        func id(_ text: String) throws -> RevisionID { try RevisionID(parsing: text) }
        var seeds = [bytes(fromHex: "00000018FFFF820301ABCD0070020000000100013400800500000000")]
        var linear = RevisionTree()
        try linear.insert(id("1-aa"), body: [0x70, 0x00], parent: nil)
        linear.markSaved(sequence: 1)
        func digest(_ generation: Int) -> String { generation == 1 ? "aa" : String(repeating: "b", count: 2 * generation) }
        for generation in 2...6 {
            try linear.insert(id("\(generation)-\(digest(generation))"), body: [0x30, 0x00],
                              parent: id("\(generation - 1)-\(digest(generation - 1))"))
            linear.markSaved(sequence: UInt64(generation))
        }
        seeds.append(try linear.encoded())
        var conflicted = RevisionTree()
        try conflicted.insert(id("1-aa"), body: [], parent: nil)
        try conflicted.insert(id("2-bb"), body: [0x70, 0x00], parent: id("1-aa"))
        try conflicted.insert(id("2-cc"), body: nil, deleted: true, parent: id("1-aa"), allowConflict: true,
                              markConflict: true)
        try conflicted.insert(id("3-dd"), body: [0x70, 0x00], hasAttachments: true, parent: id("2-bb"))
        conflicted.setRemoteRevision(1, to: try id("2-bb"))
        conflicted.setRemoteRevision(7, to: try id("3-dd"))
        conflicted.markSaved(sequence: 9)
        seeds.append(try conflicted.encoded())
        var digests = RevisionTree()
        try digests.insertHistory([id("3-0123456789abcdef0123456789abcdef01234567"),
                                   id("2-89abcdef0123456789abcdef0123456789abcdef"),
                                   id("1-fedcba9876543210fedcba9876543210fedcba98")],
                                  body: Array(repeating: 0x41, count: 40))
        digests.markSaved(sequence: 3)
        seeds.append(try digests.encoded())
        return seeds
    }

    /// Walks everything the database reads of a stored document.
    static func exercise(_ document: StoredDocument) throws {
        let tree = document.tree
        _ = tree.hasConflict
        _ = tree.leaves.count
        for index in 0..<tree.count { _ = tree.history(from: index).count }
        if let current = tree.current {
            _ = tree.revision(current.id)
            _ = tree.revision(atSequence: current.sequence)
        }
        _ = tree.remoteRevision(1)
        _ = try? document.body(sharedKeys: SharedKeys())  // allowed: the body's own validity is Fleece's fuzzer's
        let again = try RevisionTree(encoded: try tree.encoded(), recordSequence: document.sequence)
        #expect(again.count == tree.count)
        #expect(again.current?.id == tree.current?.id)
    }

    @Test func mutatedRevisionTreesDecodeOrAreRefused() throws {
        let seeds = try Self.seeds()
        let flagChoices: [DocumentFlags] = [[], .synced, .deleted, [.conflicted, .hasAttachments]]
        let campaign = try FuzzCampaign.run("revision tree codec", seed: 0x7EE_0001, inputs: 6000) { random in
            let input = FuzzMutator.mutate(seeds[Int.random(in: 0..<seeds.count, using: &random)], &random)
            let record = Record(key: "doc", version: [1], body: input,
                                flags: flagChoices[Int.random(in: 0..<flagChoices.count, using: &random)],
                                sequence: UInt64.random(in: 1...100, using: &random))
            do {
                try Self.exercise(try StoredDocument(record: record))
                return .accepted
            } catch is DatabaseError {
                return .rejected
            }
        }
        #expect(campaign.accepted > 0 && campaign.rejected > 0)
        #expect(campaign.slowest < FuzzCampaign.perInputLimit)
    }

    /// A `rev` message's ID and `history` property, parsed and inserted into a tree.
    @Test func mutatedRevisionHistoriesAreInsertedOrRefused() throws {
        let history = "4-0123456789abcdef0123456789abcdef01234567,3-89abcdef,2-cc,1-aa"
        let campaign = try FuzzCampaign.run("revision IDs and histories", seed: 0x7EE_0002, inputs: 4000) { random in
            let text = FuzzMutator.mutate(history, &random, tokens: [",", "-", "0", "99999999999999999999", "@"])
            do {
                let ids = try text.split(separator: ",").map { try RevisionID(parsing: String($0)) }
                var tree = RevisionTree()
                try tree.insert(RevisionID(parsing: "1-aa"), body: [], parent: nil)
                try tree.insertHistory(ids, body: [0x70, 0x00])
                for id in ids { _ = id.string }
                _ = try RevisionTree(encoded: try tree.encoded(), recordSequence: 1)
                return .accepted
            } catch is DatabaseError {
                return .rejected
            }
        }
        #expect(campaign.rejected > 0)
        #expect(campaign.slowest < FuzzCampaign.perInputLimit)
    }
}
