import LiteDatabase
import TestSupport
import Testing
@testable import LiteText

/// Text analysis as the index applies it, on both engines: stemming (English, French, German),
/// stop words per language, accent folding, and the match syntax's NEAR/n, column filters and
/// lower-case words that look like operators.
@Suite(.ownThreads) struct FullTextLanguageTests {
    private typealias Database = FullTextTestDatabase

    /// Runs `body` with an index `t` on property `text` of the given documents.
    private func withIndex(_ engine: StorageEngineKind, _ documents: [String: String], language: String? = nil,
                           ignoresDiacritics: Bool = false,
                           _ body: (FullTextIndex, DatabaseCore) throws -> Void) throws {
        try Database.withCore(engine) { core in
            for (id, text) in documents { try Database.save(core, id, properties: ["text": text]) }
            let index = try FullTextIndex.create(FullTextIndexDefinition(name: "t", properties: ["text"], language: language,
                                                                         ignoresDiacritics: ignoresDiacritics), in: core)
            try body(index, core)
        }
    }

    private func ids(_ index: FullTextIndex, _ text: String, _ core: DatabaseCore) throws -> Set<String> {
        Set(try index.search(text, in: core).map(\.documentID))
    }

    @Test(arguments: StorageEngineKind.allCases)
    func englishStemmingMatchesPoolsToPoolAndSwimmingToSwim(engine: StorageEngineKind) throws {
        let documents = ["pools": "A hotel with two outdoor pools", "swimming": "Swimming lessons every morning",
                         "garden": "A quiet garden"]
        try withIndex(engine, documents, language: "en") { (index: FullTextIndex, core: DatabaseCore) throws in
            #expect(try ids(index, "pool", core) == ["pools"])
            #expect(try ids(index, "swim", core) == ["swimming"])
            #expect(try ids(index, "swims", core) == ["swimming"])
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func frenchStemmingMatchesPluralsAndFeminines(engine: StorageEngineKind) throws {
        let documents = ["chevaux": "Les chevaux blancs du village", "cheval": "Un cheval noir",
                         "routes": "Les routes nationales sont fermées"]
        try withIndex(engine, documents, language: "fr") { (index: FullTextIndex, core: DatabaseCore) throws in
            #expect(try ids(index, "cheval", core) == ["chevaux", "cheval"])
            #expect(try ids(index, "nationale", core) == ["routes"])
            #expect(try ids(index, "du", core).isEmpty)   // a French stop word
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func germanStemmingMatchesUmlautPluralsAndInflections(engine: StorageEngineKind) throws {
        let documents = ["häuser": "Die Häuser am See", "haus": "Ein kleines Haus", "katzen": "Katzen schlafen gern"]
        try withIndex(engine, documents, language: "de") { (index: FullTextIndex, core: DatabaseCore) throws in
            #expect(try ids(index, "Haus", core) == ["häuser", "haus"])
            #expect(try ids(index, "Katze", core) == ["katzen"])
            #expect(try ids(index, "die", core).isEmpty)   // a German stop word
        }
    }

    /// For every language: its commonest stop word is not indexed with the language, and is
    /// without one.
    @Test(arguments: StorageEngineKind.allCases, StemmingLanguage.allCases)
    func stopWordsAreLeftOutOnlyWithALanguage(engine: StorageEngineKind, language: StemmingLanguage) throws {
        let stopWord = try #require(StopWords.list(for: language).first)
        let documents = ["doc": "\(stopWord) zebra", "other": "nothing here"]
        try withIndex(engine, documents, language: language.code) { (index: FullTextIndex, core: DatabaseCore) throws in
            #expect(try ids(index, stopWord, core).isEmpty)
            #expect(try ids(index, "zebra", core) == ["doc"])
        }
        try withIndex(engine, documents) { (index: FullTextIndex, core: DatabaseCore) throws in
            #expect(try ids(index, stopWord, core) == ["doc"])
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func ignoreAccentsMatchesCafeToCafé(engine: StorageEngineKind) throws {
        let documents = ["accented": "Le café du coin", "plain": "Internet cafe"]
        try withIndex(engine, documents, ignoresDiacritics: true) { (index: FullTextIndex, core: DatabaseCore) throws in
            #expect(try ids(index, "cafe", core) == ["accented", "plain"])
            #expect(try ids(index, "CAFÉ", core) == ["accented", "plain"])
        }
        try withIndex(engine, documents) { (index: FullTextIndex, core: DatabaseCore) throws in
            #expect(try ids(index, "cafe", core) == ["plain"])
            #expect(try ids(index, "café", core) == ["accented"])
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func nearWithADistanceCountsTheWordsBetween(engine: StorageEngineKind) throws {
        let documents = ["count": "one two three four five", "far": "one " + String(repeating: "x ", count: 12) + "five"]
        try withIndex(engine, documents) { (index: FullTextIndex, core: DatabaseCore) throws in
            #expect(try ids(index, "one NEAR/3 five", core) == ["count"])
            #expect(try ids(index, "five NEAR/3 one", core) == ["count"])   // either order
            #expect(try ids(index, "one NEAR/2 five", core).isEmpty)
            #expect(try ids(index, "one NEAR five", core) == ["count"])     // NEAR alone: 10 words
            #expect(try ids(index, "one NEAR/12 five", core) == ["count", "far"])
            #expect(try ids(index, "\"one two\" NEAR/1 four", core) == ["count"])
            #expect(try ids(index, "one NEAR/0 two NEAR/0 three", core) == ["count"])
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func eachNearOfAChainHasItsOwnDistance(engine: StorageEngineKind) throws {
        // As FTS4 (and 2.8) read `a NEAR b NEAR/2 c`: a within 10 words of b, that same b within
        // 2 of c. The generated differential found 2.8's hotel_16 for `within NEAR suite NEAR/2
        // hotels`, where the chain's smallest distance had been applied to every pair here.
        let documents = ["chain": "alpha x x x beta gamma",
                         "split": "alpha beta x x x x x x x x x x x x beta x x x gamma"]
        try withIndex(engine, documents) { (index: FullTextIndex, core: DatabaseCore) throws in
            #expect(try ids(index, "alpha NEAR beta NEAR/0 gamma", core) == ["chain"])
            #expect(try ids(index, "gamma NEAR/0 beta NEAR alpha", core) == ["chain"])
            #expect(try ids(index, "alpha NEAR/2 beta NEAR/0 gamma", core).isEmpty)
            // One occurrence of beta must link both: in "split" the beta near alpha is not the
            // one near gamma.
            #expect(try ids(index, "alpha NEAR/3 beta NEAR/3 gamma", core) == ["chain"])
            #expect(try ids(index, "alpha NEAR/0 beta NEAR/16 gamma", core) == ["split"])
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func andOrNotAndLowerCaseOperatorWords(engine: StorageEngineKind) throws {
        let documents = ["or": "cats or dogs", "and": "cats and dogs", "cats": "only cats", "not": "cats not dogs"]
        try withIndex(engine, documents) { (index: FullTextIndex, core: DatabaseCore) throws in
            #expect(try ids(index, "cats or dogs", core) == ["or"])            // "or" is a word here
            #expect(try ids(index, "cats not", core) == ["not"])
            #expect(try ids(index, "cats OR dogs", core) == ["or", "and", "cats", "not"])
            #expect(try ids(index, "cats AND dogs", core) == ["or", "and", "not"])
            #expect(try ids(index, "cats NOT dogs", core) == ["cats"])
            #expect(try ids(index, "(only OR and) NOT dogs", core) == ["cats"])
        }
    }

    /// `property:term` names a property by its path or its last component.
    @Test(arguments: StorageEngineKind.allCases)
    func aColumnFilterLimitsATermToOneProperty(engine: StorageEngineKind) throws {
        try Database.withCore(engine) { core in
            try Database.save(core, "paris", #"{"name":"Hotel Lyon","address":{"city":"Paris"}}"#)
            try Database.save(core, "lyon", #"{"name":"Hotel Paris","address":{"city":"Lyon"}}"#)
            let index = try FullTextIndex.create(FullTextIndexDefinition(name: "hotels", properties: ["name", "address.city"]),
                                                 in: core)
            #expect(try ids(index, "paris", core) == ["paris", "lyon"])
            #expect(try ids(index, "city:paris", core) == ["paris"])
            #expect(try ids(index, "address.city:paris", core) == ["paris"])
            #expect(try ids(index, "name:paris", core) == ["lyon"])
            #expect(try ids(index, "name:\"hotel paris\"", core) == ["lyon"])
            #expect(try ids(index, "name:hotel city:lyon", core) == ["lyon"])
        }
    }
}
