import Testing
import TestSupport
@testable import LiteText

/// Writing sorts a batch's terms with a radix sort of their first eight bytes and a comparison
/// of the rest on ties; the groups and blocks depend on getting memcmp order.
@Suite(.ownThreads) struct FullTextTermOrderTests {
    @Test func termsAreSortedInByteOrder() {
        var random = SystemRandomNumberGenerator()
        // Short and long terms, shared eight-byte prefixes, bytes past ASCII, and one term.
        let fixed: [[UInt8]] = ["a", "ab", "abcdefgh", "abcdefghi", "abcdefghh", "abcdefgha", "z", "zz", "é", "éa",
                                "connection", "connections", "connectionz", "0", "9", "ab0"].map { Array($0.utf8) }
        for round in 0..<50 {
            var terms = round == 0 ? [fixed[0]] : fixed
            for _ in 0..<(round * 20) {
                let length = Int.random(in: 1...14, using: &random)
                terms.append((0..<length).map { _ in
                    [UInt8(ascii: "a"), UInt8(ascii: "b"), 0xC3, 0xA9, UInt8(ascii: "7")].randomElement(using: &random) ?? 0x61
                })
            }
            // Distinct terms, as a term table numbers them.
            var seen = Set<[UInt8]>()
            terms = terms.filter { seen.insert($0).inserted }
            let numbers = Array(terms.indices).shuffled(using: &random)
            let sorted = FullTextPendingPostings.inByteOrder(numbers, terms: terms)
            #expect(sorted.map { terms[$0] } == terms.sorted { $0.lexicographicallyPrecedes($1) })
        }
    }
}
