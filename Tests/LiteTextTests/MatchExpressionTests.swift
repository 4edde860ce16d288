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
        #expect(try parse("a NEAR/3 b OR c") == .or(.near([term("a"), term("b")], distances: [3]), term("c")))
        #expect(try parse("a NEAR b") == .near([term("a"), term("b")], distances: [10]))
        // Each NEAR of a chain keeps its own distance, as in FTS4.
        #expect(try parse("a NEAR b NEAR/2 c NEAR/0 d") == .near([term("a"), term("b"), term("c"), term("d")], distances: [10, 2, 0]))
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
        // FTS4 takes a term's first word only; the rest is read again (`e-mail` is `e mail`).
        #expect(try parse("e-mail") == .and(term("e"), term("mail")))
        // `*` inside quotes makes that word a prefix; after the closing quote it is nothing.
        #expect(try parse("\"full te*\"") == .phrase([MatchTerm(text: "full"), MatchTerm(text: "te", isPrefix: true, offset: 1)]))
        #expect(try parse("\"full text\"*") == .phrase([MatchTerm(text: "full"), MatchTerm(text: "text", offset: 1)]))
        // A stop word inside a phrase keeps its place.
        #expect(try parse("\"dark and stormy\"", english) == .phrase([MatchTerm(text: "dark"),
                                                                        MatchTerm(text: "stormi", offset: 2)]))
    }

    @Test func termsAreNormalisedLikeIndexedText() throws {
        #expect(try parse("Running THE Dogs", english) == .and(term("run"), term("dog")))
        #expect(try parse("the", english) == nil)
        #expect(try parse("runn*", english) == term("runn", prefix: true))
    }

    /// As FTS4 with `unicodesn`: a prefix term is stemmed before it is looked up.
    @Test func prefixTermsAreStemmed() throws {
        #expect(try parse("rooms*", english) == term("room", prefix: true))
        #expect(try parse("beaches*", english) == term("beach", prefix: true))
        #expect(try parse("Rooms*", plain) == term("rooms", prefix: true))
    }

    /// As FTS4: where a term may start, the text up to the next parenthesis or quote goes
    /// through the tokenizer and its first kept word is the term, so stop words (and operators
    /// among them) before it are skipped.
    @Test func stopWordsAreSkippedWithTheOperatorsAmongThem() throws {
        #expect(try parse("the NOT beach", english) == term("beach"))
        #expect(try parse("the OR beach", english) == term("beach"))
        #expect(try parse("the NEAR beach", english) == .and(term("near"), term("beach")))
        #expect(try parse("pool NOT the beach", english) == .not(term("pool"), term("beach")))
        #expect(try parse("pool NEAR/2 the beach", english) == .near([term("pool"), term("beach")], distances: [2]))
        #expect(try parse("the (pool)", english) == term("pool"))
        #expect(try parse("pool ()", english) == term("pool"))
        #expect(try parse("the and", english) == nil)
        // An operator with nothing but stop words after it is malformed, as in FTS4.
        #expect(throws: TextAnalysisError.self) { try parse("beach NOT the", english) }
        #expect(throws: TextAnalysisError.self) { try parse("beach NEAR the", english) }
        // Operators are operators only before a space, a parenthesis, a quote or the end.
        #expect(try parse("a NEAR/x b") == .and(.and(term("a"), term("near")), .and(term("x"), term("b"))))
        #expect(try parse("ORacle") == term("oracle"))
    }

    /// FTS4 refuses an operator tree deeper than 12 (after balancing runs of AND and OR); so do
    /// we, which also bounds the recursion that evaluates it.
    @Test func operatorTreesDeeperThanFTS4AllowsAreRefused() throws {
        let many = Array(repeating: "a", count: 300_000).joined(separator: " ")
        #expect(throws: TextAnalysisError.self) { try parse(many) }
        let ors = Array(repeating: "a", count: 4_000).joined(separator: " OR ")
        #expect(try parse(ors)?.depth == 12)
        #expect(throws: TextAnalysisError.self) { try parse("a" + String(repeating: " NOT b", count: 13)) }
        #expect(try parse("a" + String(repeating: " NOT b", count: 12))?.depth == 12)
        #expect(throws: TextAnalysisError.self) { try parse("a" + String(repeating: " NEAR b", count: 13)) }
    }

    @Test(arguments: [
        ("", 0), ("(a OR b", 0), ("a)", 1), ("\"open phrase", 0), ("OR a", 0), ("a OR", 4),
        ("NOT a", 0), ("a AND", 5), ("() NOT a", 3),
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
