import Testing
import TestSupport
@testable import LiteText

/// Fuzzing of the full-text match syntax (`MATCH(index, '…')`): mutated real expressions and
/// generated deep nestings parse or are refused with a `TextAnalysisError`.
@Suite(.ownThreads) struct MatchSyntaxFuzzTests {
    static let seeds = ["sqlite database", "a OR b c", "(a OR b) c", "a NEAR/3 b OR c", "\"linux kernel\" NOT windows",
                        "data* NEAR base", "title:dummie woman", "cats or dogs", "\"one two\" NEAR/0 \"three four\"",
                        "-x +y", "NOT a", "Dummie woman", "café Ünsal 東京 🎉"]
    static let tokens = ["(", ")", "\"", "*", ":", " OR ", " AND ", " NOT ", " NEAR ", " NEAR/", "/", "99999999999999999999",
                         "-1", " ", "\u{0}", "é"]

    /// A generated expression nested `depth` deep with one operator.
    static func nested(_ depth: Int, _ random: inout SplitMix64) -> String {
        switch Int.random(in: 0..<4, using: &random) {
        case 0: return String(repeating: "(", count: depth) + "a" + String(repeating: ")", count: depth)
        case 1: return (0..<depth).map { "t\($0)" }.joined(separator: " NEAR ")
        case 2: return String(repeating: "a NOT ", count: depth) + "b"
        default: return String(repeating: "(a OR ", count: depth) + "b" + String(repeating: ")", count: depth)
        }
    }

    /// Found by the fuzzer: 3,000 nested parentheses exhausted the stack (SIGSEGV).
    @Test func nestingIsBoundedNotACrash() throws {
        let tokenizer = try TextTokenizer(language: nil)
        let deepest = String(repeating: "(", count: MatchParser.maximumNesting) + "a"
            + String(repeating: ")", count: MatchParser.maximumNesting)
        #expect(try MatchExpression.parse(deepest, tokenizer: tokenizer) != nil)
        for depth in [MatchParser.maximumNesting + 1, 100_000] {
            let text = String(repeating: "(", count: depth) + "a" + String(repeating: ")", count: depth)
            #expect(throws: TextAnalysisError.self) { try MatchExpression.parse(text, tokenizer: tokenizer) }
        }
    }

    @Test func mutatedMatchExpressionsParseOrAreRefused() throws {
        let tokenizers = [try TextTokenizer(language: .english), try TextTokenizer(language: nil)]
        let campaign = FuzzCampaign.run("FTS match syntax", seed: 0xF75_0001, inputs: 5000) { random in
            let text = Int.random(in: 0..<50, using: &random) == 0
                ? Self.nested(Int.random(in: 1...3000, using: &random), &random)
                : FuzzMutator.mutate(Self.seeds[Int.random(in: 0..<Self.seeds.count, using: &random)], &random,
                                     tokens: Self.tokens)
            do {
                _ = try MatchExpression.parse(text, tokenizer: tokenizers[Int.random(in: 0...1, using: &random)])
                return .accepted
            } catch is TextAnalysisError {
                return .rejected
            } catch {
                Issue.record("the match parser threw \(type(of: error)), not TextAnalysisError, for \(text)")
                return .rejected
            }
        }
        #expect(campaign.accepted > 0 && campaign.rejected > 0)
        #expect(campaign.slowest < FuzzCampaign.perInputLimit)
    }
}
