import Testing
import TestSupport
@testable import LiteText

@Suite(.ownThreads) struct TokenizerTests {
    @Test func wordsAreRunsOfLettersAndDigitsWithByteRanges() throws {
        let tokenizer = try TextTokenizer(language: nil)
        let tokens = tokenizer.tokens(in: "Hello, wörld! 42nd-street")
        #expect(tokens.map(\.term) == ["hello", "wörld", "42nd", "street"])
        #expect(tokens.map(\.position) == [0, 1, 2, 3])
        #expect(tokens[1].byteRange == 7..<13)   // "wörld": ö is two bytes
    }

    @Test func englishStemsAndDropsStopWordsButKeepsPositions() throws {
        let tokenizer = try TextTokenizer(language: .english)
        let tokens = tokenizer.tokens(in: "The Running of the Dogs")
        #expect(tokens.map(\.term) == ["run", "dog"])
        #expect(tokens.map(\.position) == [1, 4])
    }

    @Test func diacriticsFoldOnlyWhenAsked() throws {
        let keeping = try TextTokenizer(language: nil)
        let folding = try TextTokenizer(language: nil, ignoresDiacritics: true)
        #expect(keeping.tokens(in: "Café Ñandú").map(\.term) == ["café", "ñandú"])
        #expect(folding.tokens(in: "Café Ñandú").map(\.term) == ["cafe", "nandu"])
    }

    @Test func ideographsAreOneCharacterTokens() throws {
        let tokenizer = try TextTokenizer(language: nil)
        #expect(tokenizer.tokens(in: "東京タワー tower").map(\.term) == ["東", "京", "タ", "ワ", "ー", "tower"])
    }

    @Test func customStopWordsReplaceTheLanguagesList() throws {
        let tokenizer = try TextTokenizer(language: .english, stopWords: ["dog"])
        #expect(tokenizer.tokens(in: "the dog runs").map(\.term) == ["the", "run"])
    }

    @Test func noStemmingKeepsWholeWords() throws {
        let tokenizer = try TextTokenizer(language: .english, stemming: false)
        #expect(tokenizer.tokens(in: "running dogs").map(\.term) == ["running", "dogs"])
    }

    /// Indexing analyses each spelling once, plain ASCII as bytes, and a spelling with capitals
    /// through its lower-case one: the terms must be those `term(for:)` gives a query's words,
    /// whichever spelling comes first.
    @Test func indexingNumbersTheTermsQueriesLookUp() throws {
        let words = ["Pool", "pool", "POOLS", "pools", "The", "the", "THE", "Running", "running", "Café", "café",
                     "CAFÉ", "東", "42", "X42y", "naïve", "Naïve", "über", "Straße", "connections", "I", "a", "Zebra",
                     "généralement", "Généralement", "Les", "les", "und", "Und", "été", "Été", "ete", "Ete", "AND", "aNd"]
        let tokenizers = try [nil, StemmingLanguage.english, .french, .german, .turkish].flatMap { language in
            try [false, true].map { try TextTokenizer(language: language, ignoresDiacritics: $0) }
        } + [try TextTokenizer(language: .english, stemming: false), try TextTokenizer(language: .english, stopWords: ["Pool"])]
        for tokenizer in tokenizers {
            for order in [words, words.reversed()] {
                var table = FullTextTermTable()
                for word in order {
                    let number = Array(word.utf8).withUnsafeBufferPointer { table.term(ofWord: $0[...], tokenizer: tokenizer) }
                    let expected = tokenizer.term(for: word)
                    #expect((number == FullTextTermTable.stopWord ? nil : String(decoding: table.terms[Int(number)], as: UTF8.self))
                            == expected, "\(word) with \(String(describing: tokenizer.language)), \(tokenizer.ignoresDiacritics)")
                }
            }
        }
    }
}
