import CouchbaseLiteSwift
import Foundation
import Testing
import TestSupport
@testable import LiteQuery

/// Query input that arrives in replicated documents (a hostile peer chooses it) must not crash
/// or hang a query: LIKE on megabytes, regular expressions that backtrack exponentially, and
/// full-text matches with hundreds of thousands of terms.
@Suite(.ownThreads) struct QueryInputLimitsTests {
    private func withText<T>(_ engine: StorageEngineKind, _ text: String, _ body: (Database) throws -> T) throws -> T {
        try withDatabase(engine) { database, _ throws in
            try database.saveDocument(MutableDocument(id: "long", data: ["text": text]))
            try database.saveDocument(MutableDocument(id: "short", data: ["text": "Royal Engine Museum"]))
            return try body(database)
        }
    }

    private func ids(_ database: Database, where condition: String) throws -> [String] {
        try database.createQuery(json: #"{"WHAT": [["._id"]], "WHERE": \#(condition), "ORDER_BY": [["._id"]]}"#)
            .execute().map { $0.string(at: 0) ?? "?" }
    }

    /// A recursive LIKE used one stack frame per character: 2 MB overflowed the stack.
    @Test(arguments: StorageEngineKind.allCases)
    func likeOnTwoMegabytesNeitherCrashesNorCrawls(engine: StorageEngineKind) throws {
        let text = String(repeating: "ab", count: 1 << 20) + "xyz"
        try withText(engine, text) { database throws in
            let start = ContinuousClock.now
            #expect(try ids(database, where: #"["LIKE", [".text"], "%b_yz%"]"#) == ["long"])
            #expect(try ids(database, where: #"["LIKE", [".text"], "a%a%a%a%q"]"#).isEmpty)
            #expect(try ids(database, where: #"["LIKE", [".text"], "%ENGINE%"]"#) == ["short"])
            #expect(ContinuousClock.now - start < TestTimeScale.scaled(.seconds(60)))
        }
    }

    /// LIKE against a reference matcher (a regular expression) on generated short inputs.
    @Test func likeAgreesWithAReferenceOnGeneratedInputs() throws {
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        func next(_ bound: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int(state >> 33) % bound
        }
        let textAlphabet = Array("abA%_\\")
        let patternAlphabet = Array("ab%_\\A")
        for _ in 0..<3_000 {
            let text = String((0..<next(8)).map { _ in textAlphabet[next(textAlphabet.count)] })
            let pattern = String((0..<next(7)).map { _ in patternAlphabet[next(patternAlphabet.count)] })
            var regex = "^"
            var characters = pattern.lowercased()[...]
            while let c = characters.popFirst() {
                switch c {
                case "%": regex += ".*"
                case "_": regex += "."
                case "\\": regex += NSRegularExpression.escapedPattern(for: String(characters.popFirst() ?? "\\"))
                default: regex += NSRegularExpression.escapedPattern(for: String(c))
                }
            }
            let reference = try NSRegularExpression(pattern: regex + "$", options: [.dotMatchesLineSeparators])
            let lower = text.lowercased()
            let expected = reference.firstMatch(in: lower, range: NSRange(lower.startIndex..., in: lower)) != nil
            #expect(QueryFunctions.like(text, pattern) == expected, "\(text) LIKE \(pattern)")
        }
    }

    /// REGEXP_LIKE searches within the string, as 2.8 does: the 2.0 guide's `\bEng.*e\b` finds
    /// a name that contains such a word.
    @Test(arguments: StorageEngineKind.allCases)
    func regexpLikeSearchesWithinTheString(engine: StorageEngineKind) throws {
        try withText(engine, "nothing here") { database throws in
            #expect(try ids(database, where: #"["REGEXP_LIKE()", [".text"], "\\bEng.*e\\b"]"#) == ["short"])
            let builder = try QueryBuilder.select(SelectResult.expression(Meta.id)).from(DataSource.database(database))
                .where(Expression.property("text").regex(Expression.string("\\bEng.*e\\b"))).execute().allResults()
            #expect(builder.map { $0.string(at: 0) } == ["short"])
            let row = try #require(try database.createQuery(json:
                #"{"WHAT": [["REGEXP_POSITION()", [".text"], "Eng"], ["REGEXP_POSITION()", [".text"], "zzz"],"#
                    + #" ["REGEXP_REPLACE()", [".text"], "(\\w+) (\\w+)", "$2-$1"],"#
                    + #" ["REGEXP_REPLACE()", [".text"], "o", "0", 1]], "WHERE": ["=", ["._id"], "short"]}"#)
                .execute().allResults().first)
            #expect(row.int(at: 0) == 6)
            #expect(row.int(at: 1) == -1)
            #expect(row.string(at: 2) == "Engine-Royal Museum")
            #expect(row.string(at: 3) == "R0yal Engine Museum")
        }
    }

    /// A pattern that repeats a repeating group backtracks exponentially: refused with a clear
    /// error before it runs (it ran for ever on a long text).
    @Test(arguments: StorageEngineKind.allCases)
    func exponentialPatternsAndHugeOnesAreRefused(engine: StorageEngineKind) throws {
        try withText(engine, String(repeating: "a", count: 26)) { database throws in
            for pattern in ["(a+)+b", "(a*)*b", "((ab)*c)+d", "(\\\\w+\\\\s?)+$", "(a{2,})+b"] {
                do {
                    _ = try ids(database, where: #"["REGEXP_LIKE()", [".text"], "\#(pattern)"]"#)
                    Issue.record("\(pattern) was accepted")
                } catch let error as CouchbaseLiteError {
                    #expect(error.message.contains("exponential"), "\(error.message)")
                }
            }
            let huge = String(repeating: "a", count: QueryRegex.maximumPatternLength + 1)
            #expect(errorCode { _ = try ids(database, where: #"["REGEXP_LIKE()", [".text"], "\#(huge)"]"#) } == .invalidQuery)
            // Bounded repetitions, alternatives and plain nesting are fine.
            #expect(try ids(database, where: #"["REGEXP_LIKE()", [".text"], "(a{2}|b)+$"]"#) == ["long"])
            #expect(try ids(database, where: #"["REGEXP_LIKE()", [".text"], "((a)b?)*"]"#) == ["long", "short"])
        }
    }

    @Test func nestedRepetitionIsFoundOutsideEscapesAndSets() {
        #expect(QueryRegex.nestedRepetition(in: "(a+)+") != nil)
        #expect(QueryRegex.nestedRepetition(in: "(?:x(y*))*") != nil)
        #expect(QueryRegex.nestedRepetition(in: "\\(a+\\)+") == nil)
        #expect(QueryRegex.nestedRepetition(in: "([+*])+") == nil)
        #expect(QueryRegex.nestedRepetition(in: "(a+)?b(c*)") == nil)
        #expect(QueryRegex.nestedRepetition(in: "(ab){3}(c+)") == nil)
    }

    /// The same pattern over many rows is compiled once (it was compiled once per row).
    @Test(arguments: StorageEngineKind.allCases)
    func aPatternIsCompiledOncePerQueryNotPerRow(engine: StorageEngineKind) throws {
        try withDatabase(engine) { database, _ throws in
            try database.inBatch {
                for number in 0..<200 { try database.saveDocument(MutableDocument(id: "d\(number)", data: ["n": "x\(number)"])) }
            }
            let pattern = "^x1\\\\d*$-\(UInt64.random(in: 0..<UInt64.max))|^x1\\\\d*$"
            let before = QueryRegex.compilations.withLock { $0 }
            let found = try database.createQuery(json: #"{"WHAT": [["._id"]], "WHERE": ["REGEXP_LIKE()", [".n"], "\#(pattern)"]}"#)
                .execute().allResults()
            #expect(found.count == 111)
            // Other tests may compile patterns meanwhile; a per-row compile would add 200.
            #expect(QueryRegex.compilations.withLock { $0 } - before < 50)
        }
    }
}
