import Testing
import TestSupport
@testable import LiteQuery

/// Rows are put in document-ID order by each ID's first 16 bytes, then whole IDs where those
/// tie. On generated IDs that share long prefixes, differ in length by NUL bytes, and hold
/// multi-byte characters, the order must be a stable sort by the IDs' bytes.
@Suite struct DocumentIDOrderPropertyTests {
    @Test func rowsSortAsTheirIDBytes() {
        var random = SplitMix64(seed: 601)
        let pieces = ["route_1000", "route_10000", "a", "\u{0}", "é", "e\u{301}", "landmark_", "z", "", "~\u{10FFFF}"]
        for _ in 0..<300 {
            let count = Int.random(in: 0...40, using: &random)
            let ids = (0..<count).map { _ in
                (0..<Int.random(in: 0...4, using: &random)).map { _ in pieces[Int.random(in: 0..<pieces.count, using: &random)] }.joined()
            }
            var rows = ids.enumerated().map { QueryRow(id: $0.element, sequence: UInt64($0.offset), isDeleted: false, expiration: nil, body: nil) }
            rows.sortByDocumentID()
            let expected = ids.enumerated().sorted { a, b in
                let (x, y) = (Array(a.element.utf8), Array(b.element.utf8))
                return x != y ? x.lexicographicallyPrecedes(y) : a.offset < b.offset
            }.map { UInt64($0.offset) }
            #expect(rows.map(\.sequence) == expected, "\(ids)")
        }
    }
}
