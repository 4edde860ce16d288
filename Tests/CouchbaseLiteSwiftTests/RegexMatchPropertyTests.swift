import Foundation
import PropertyBased
import Testing
import TestSupport
@testable import LiteQuery

/// `REGEXP_LIKE()` and friends moved from `NSRegularExpression` (ICU) to Swift's `Regex`, so that
/// the tools need not link Foundation (Tools-18); on generated patterns of the common syntax and
/// generated ASCII texts, the two must find a match in the same cases. Beyond ASCII the classes
/// follow Couchbase Lite 2.8, whose ECMAScript `std::regex` counts only ASCII as `\w`, `\d`, `\s`.
@Suite(.ownThreads) struct RegexMatchPropertyTests {
    private static let pieces = ["a", "b", "c", ".", "a*", "b+", "c?", "[ab]", "[^a]", "(ab|c)", "^", "$",
                                 "\\d", "\\s", "\\w+", "x{2}", "a|b", "(?:ba)+", "[a-c]{1,2}", "\\.", "_"]

    @Test func swiftRegexMatchesWhereNSRegularExpressionDoes() async throws {
        let patterns = Gen<String?>.element(of: Self.pieces).map { $0 ?? "a" }.array(of: 1...5)
            .map { $0.joined() }
        let texts = Gen<Character?>.element(of: Array("abcx1 ._e\t")).map { $0 ?? "a" }.string(of: 0...10)
        await propertyCheck(count: 600, input: patterns, texts) { pattern, text in
            let expected = try? NSRegularExpression(pattern: pattern)
                .firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
            #expect((try? QueryRegex.matches(text, pattern)) == expected, "\(pattern) on \(text)")
        }
    }

    @Test func classesAreASCIIOnlyAsInCouchbaseLite28() throws {
        #expect(try !QueryRegex.matches("é", "\\w"))
        #expect(try !QueryRegex.matches("٣", "\\d"))
        #expect(try !QueryRegex.matches("\u{3000}", "\\s"))
    }

    @Test func anInvalidPatternIsAQueryError() {
        #expect(throws: QueryError.self) { try QueryRegex.matches("a", "(a") }
    }
}
