import Foundation
import LiteDatabase
import PropertyBased
import Testing
import TestSupport
@testable import LiteReplicator

/// The pusher writes its change lists byte by byte; for generated changes (document IDs with
/// quotes, backslashes, control characters and non-ASCII text; any sizes and sequences), the
/// text must read back, through Foundation's JSON parser, as the arrays `JSONSerialization`
/// was given for them before.
@Suite(.ownThreads) struct ChangeListJSONPropertyTests {
    private static let pieces = ["a", "doc", "\"", "\\", "/", "\n", "\u{01}", "\u{1F}", "\u{7F}", "é", "東京", "😀", " ", ":", "-"]

    private static func changes(_ picks: [[Int]]) -> [OutgoingChange] {
        picks.enumerated().map { index, pick in
            let id = pick.dropLast(3).map { pieces[$0 % pieces.count] }.joined()
            let numbers = pick.suffix(3)
            let generation = UInt64(numbers.first ?? 1) + 1
            let digest = (0..<20).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ index &+ (numbers.last ?? 0)) }
            let remote = numbers.dropFirst().first.map { $0.isMultiple(of: 2) } == true
                ? RevisionID(generation: generation - 1 == 0 ? 1 : generation - 1, digest: Array(digest.reversed())) : nil
            return OutgoingChange(documentID: id, revisionID: RevisionID(generation: generation, digest: digest),
                                  sequence: UInt64(index) * 7_919 + UInt64(numbers.last ?? 0), deleted: (numbers.last ?? 0) % 3 == 0,
                                  bodySize: (numbers.first ?? 0) * 97, remoteAncestor: remote)
        }
    }

    private static func parsed(_ bytes: [UInt8]) -> NSArray? {
        try? JSONSerialization.jsonObject(with: Data(bytes)) as? NSArray
    }

    private static func foundation(_ value: Any) -> NSArray? {
        guard let data = try? JSONSerialization.data(withJSONObject: value) else { return nil }
        return parsed(Array(data))
    }

    @Test func proposalsReadAsFoundationsArrays() async {
        let lists = Gen.int(in: 0...100_000).array(of: 3...12).array(of: 0...30)
        await propertyCheck(count: 300, input: lists) { picks in
            let changes = Self.changes(picks)
            let expected = Self.foundation(changes.map { change -> [Any] in
                [change.documentID, change.revisionID.string, change.remoteAncestor?.string ?? "", change.bodySize]
            })
            let actual = Self.parsed(ChangeListJSON.proposals(changes))
            #expect(actual != nil && actual == expected)
        }
    }

    @Test func changesReadAsFoundationsArrays() async {
        let lists = Gen.int(in: 0...100_000).array(of: 3...12).array(of: 0...30)
        await propertyCheck(count: 300, input: lists) { picks in
            let changes = Self.changes(picks)
            let expected = Self.foundation(changes.map { change -> [Any] in
                [change.sequence, change.documentID, change.revisionID.string, change.deleted ? 1 : 0, change.bodySize]
            })
            let actual = Self.parsed(ChangeListJSON.changes(changes))
            #expect(actual != nil && actual == expected)
        }
    }

    @Test func statusListsReadAsFoundationsArrays() async {
        await propertyCheck(count: 200, input: Gen.int(in: -1_000...100_000).array(of: 0...40)) { statuses in
            #expect(Self.parsed(ChangeListJSON.integers(statuses)) == Self.foundation(statuses))
        }
    }
}
