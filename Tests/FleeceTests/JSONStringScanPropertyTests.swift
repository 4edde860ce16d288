import Foundation
import PropertyBased
import Testing
@testable import Fleece

/// The parser scans strings eight bytes at a time until a quote, backslash or control byte; for
/// generated strings that put those (and multi-byte UTF-8) at every offset, it must decode what
/// Foundation's JSON parser decodes, and reject what it rejects.
@Suite struct JSONStringScanPropertyTests {
    private static let pieces = ["a", "bcdefgh", "é", "東京", "\\\"", "\\\\", "\\n", "\\u00e9", "\\ud83d\\ude00", "\u{01}",
                                 "\u{1F}", "\u{7F}", " ", "/", "\\/", "'", "12345678", "\t"]

    @Test func decodesAsFoundationDoes() async {
        let strings = Gen.int(in: 0...(Self.pieces.count - 1)).array(of: 0...40)
        await propertyCheck(count: 500, input: strings) { picks in
            let literal = "\"" + picks.map { Self.pieces[$0] }.joined() + "\""
            let expected = (try? JSONSerialization.jsonObject(with: Data("[\(literal)]".utf8)) as? [String])?.first
            let actual = (try? JSONConverter.fleece(fromJSON: literal)).flatMap { try? FleeceDocument(bytes: $0).root.string }
            #expect(actual == expected, "\(literal.debugDescription)")
        }
    }
}
