import Testing
import TestSupport
@testable import LiteText

@Suite(.ownThreads) struct StemmerTests {
    /// Every language the guide lists has a Snowball stemmer in the system library.
    @Test(arguments: StemmingLanguage.allCases)
    func everyGuideLanguageHasAStemmer(language: StemmingLanguage) throws {
        let stemmer = try Stemmer(language: language)
        #expect(!stemmer.stem("test").isEmpty)
    }

    @Test(arguments: [
        (StemmingLanguage.english, "connections", "connect"), (.english, "running", "run"),
        (.english, "generously", "generous"), (.french, "continuellement", "continuel"),
        (.german, "aufeinanderfolgenden", "aufeinanderfolg"), (.spanish, "corriendo", "corr"),
        (.russian, "книгами", "книг"), (.swedish, "klokheten", "klok"),
    ])
    func stemsAsSnowballDoes(language: StemmingLanguage, word: String, stem: String) throws {
        #expect(try Stemmer(language: language).stem(word) == stem)
    }

    @Test(arguments: [("en", StemmingLanguage.english), ("en_US", .english), ("fr-CA", .french),
                      ("german", .german), ("nb", .norwegian), ("TR", .turkish)])
    func languagesAreFoundByCodeOrName(code: String, language: StemmingLanguage) {
        #expect(StemmingLanguage(code: code) == language)
    }

    @Test func aLanguageWithoutStemmerIsNil() {
        #expect(StemmingLanguage(code: "ja") == nil)
        #expect(StemmingLanguage(code: "") == nil)
    }
}
