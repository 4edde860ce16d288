import Testing
import TestSupport
@testable import LiteText

@Suite(.ownThreads) struct MatchExpressionTests {
    private let english = try! TextTokenizer(language: .english)   // allowed: fixed, valid test input
    private let plain = try! TextTokenizer(language: nil)          // allowed: fixed, valid test input

    private func parse(_ text: String, _ tokenizer: TextTokenizer? = nil) throws -> MatchExpression? {
        try MatchExpression.parse(text, tokenizer: tokenizer ?? plain)
    }

    private func term(_ text: String, prefix: Bool = false, column: String? = nil) -> MatchExpression {
        .term(MatchTerm(text: text, isPrefix: prefix, column: column))
    }

    @Test func adjacentTermsAreAnd() throws {
        #expect(try parse("sqlite database") == .and(term("sqlite"), term("database")))
        #expect(try parse("sqlite AND database") == .and(term("sqlite"), term("database")))
    }

    @Test func precedenceIsNearNotAndOr() throws {
        #expect(try parse("a OR b c") == .or(term("a"), .and(term("b"), term("c"))))
        #expect(try parse("a b NOT c") == .and(term("a"), .not(term("b"), term("c"))))
        #expect(try parse("(a OR b) c") == .and(.or(term("a"), term("b")), term("c")))
        #expect(try parse("a NEAR/3 b OR c") == .or(.near([term("a"), term("b")], distance: 3), term("c")))
        #expect(try parse("a NEAR b") == .near([term("a"), term("b")], distance: 10))
    }

    @Test func lowerCaseOperatorsAreTerms() throws {
        #expect(try parse("cats or dogs") == .and(.and(term("cats"), term("or")), term("dogs")))
    }

    @Test func phrasesPrefixesAndColumns() throws {
        #expect(try parse("\"full text search\"") == .phrase([MatchTerm(text: "full"), MatchTerm(text: "text", offset: 1),
                                                              MatchTerm(text: "search", offset: 2)]))
        #expect(try parse("data*") == term("data", prefix: true))
        #expect(try parse("name:ritz") == term("ritz", column: "name"))
        #expect(try parse("name:\"grand hotel\"") == .phrase([MatchTerm(text: "grand", column: "name"),
                                                             MatchTerm(text: "hotel", column: "name", offset: 1)]))
        #expect(try parse("e-mail") == .phrase([MatchTerm(text: "e"), MatchTerm(text: "mail", offset: 1)]))
        // A stop word inside a phrase keeps its place.
        #expect(try parse("\"dark and stormy\"", english) == .phrase([MatchTerm(text: "dark"),
                                                                        MatchTerm(text: "stormi", offset: 2)]))
    }

    @Test func termsAreNormalisedLikeIndexedText() throws {
        #expect(try parse("Running THE Dogs", english) == .and(term("run"), term("dog")))
        #expect(try parse("the", english) == nil)
        #expect(try parse("runn*", english) == term("runn", prefix: true))
    }

    @Test(arguments: [
        ("", 0), ("(a OR b", 0), ("a)", 1), ("\"open phrase", 0), ("OR a", 0), ("a OR", 4),
        ("NOT a", 0), ("a NEAR/x b", 2), ("a AND", 5), ("()", 1),
    ])
    func syntaxErrorsNameThePosition(text: String, position: Int) {
        #expect(throws: TextAnalysisError.self) { try parse(text) }
        do {
            _ = try parse(text)
        } catch let error as TextAnalysisError {
            #expect(error.position == position, "\(text): \(error)")
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    /// Arbitrary input never crashes the parser: it parses or gives a positioned error.
    @Test func randomInputNeverCrashes() {
        let alphabet = Array("ab ()\"*:-NEAR/3ORANDNOT é東")
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<3_000 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            let length = Int(state >> 59)
            var text = ""
            for step in 0..<length {
                let index = Int((state >> UInt64(step % 50)) % UInt64(alphabet.count))
                text.append(alphabet[index])
            }
            do {
                _ = try parse(text)
            } catch let error as TextAnalysisError {
                #expect(error.position.map { $0 >= 0 && $0 <= text.count } ?? false, "\(text)")
            } catch {
                Issue.record("unexpected error \(error) for \(text)")
            }
        }
    }
}
