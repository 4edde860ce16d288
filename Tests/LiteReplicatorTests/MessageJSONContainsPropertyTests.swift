import PropertyBased
import Testing
import TestSupport
@testable import LiteReplicator

/// `MessageJSON.contains` (glibc `memmem`) screens received bodies for a few keys; for
/// generated texts over a small alphabet (so needles occur, partly occur and overlap), it must
/// answer as a naive search does.
@Suite(.ownThreads) struct MessageJSONContainsPropertyTests {
    private static let alphabet: [UInt8] = Array("\"_a{}:d".utf8)

    private static func naive(_ bytes: [UInt8], _ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, bytes.count >= needle.count else { return false }
        return (0...(bytes.count - needle.count)).contains { Array(bytes[$0..<$0 + needle.count]) == needle }
    }

    @Test func answersAsANaiveSearch() async {
        let texts = Gen.int(in: 0...(Self.alphabet.count - 1)).array(of: 0...60)
        let needles = Gen.int(in: 0...(Self.alphabet.count - 1)).array(of: 0...5)
        await propertyCheck(count: 1_000, input: texts, needles) { text, needle in
            let bytes = text.map { Self.alphabet[$0] }
            let pattern = needle.map { Self.alphabet[$0] }
            #expect(MessageJSON.contains(bytes, String(decoding: pattern, as: UTF8.self)) == Self.naive(bytes, pattern))
        }
    }
}
