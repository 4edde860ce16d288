import Testing
@testable import LiteText

@Suite struct TokenizerTests {
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
}
