import LiteDatabase
import PropertyBased
import TestSupport
import Testing
@testable import LiteText

/// For random documents and random single-term queries, a full-text index finds exactly the
/// documents a brute-force scan finds by tokenizing every text the same way — through index
/// creation over existing documents, saves after it, and an update.
@Suite(.ownThreads) struct FullTextPropertyTests {
    /// Words that stress the analysis: case, accents, stems, stop words, digits, ideographs.
    private static let vocabulary = [
        "pool", "Pools", "swimming", "swim", "café", "CAFE", "cafe", "the", "The", "and", "42", "東", "京",
        "hôtel", "hotel", "naïve", "chevaux", "cheval", "Häuser", "haus", "running", "runs", "or", "NOT",
    ]
    /// Single terms to look for (not the upper-case operator, which is a syntax error alone).
    private static let queries = vocabulary.filter { $0 != "NOT" } + ["absent"]
    private static let separators = [" ", ", ", "-", ". ", "'", "\n", "東"]

    private static let languages: [String?] = [nil, "en", "fr", "de"]

    /// A document's text: up to 10 vocabulary words, each followed by a separator.
    private static func text(_ picks: [Int]) -> String {
        var text = ""
        for (index, pick) in picks.enumerated() {
            let word = vocabulary[pick % vocabulary.count]
            text += word + separators[(index * 7 + word.utf8.count) % separators.count]
        }
        return text
    }

    @Test(arguments: StorageEngineKind.allCases)
    func singleTermSearchEqualsABruteForceScan(engine: StorageEngineKind) async {
        let documents = Gen.int(in: 0...1_000).array(of: 0...10).array(of: 1...12)
        let queries = Gen.int(in: 0...(Self.queries.count - 1))
        let settings = Gen.int(in: 0...(Self.languages.count * 2 - 1))
        await propertyCheck(count: 40, input: documents, queries, settings) { picks, queryPick, setting in
            let texts = picks.map(Self.text)
            let query = Self.queries[queryPick]
            let language = Self.languages[setting / 2]
            let foldsAccents = setting % 2 == 1
            try FullTextTestDatabase.withCore(engine) { core in
                let definition = FullTextIndexDefinition(name: "p", properties: ["text"], language: language,
                                                         ignoresDiacritics: foldsAccents)
                let half = texts.count / 2
                for (number, text) in texts.enumerated() where number < half {
                    try FullTextTestDatabase.save(core, "doc\(number)", properties: ["text": text])
                }
                let index = try FullTextIndex.create(definition, in: core)
                for (number, text) in texts.enumerated() where number >= half {
                    try FullTextTestDatabase.save(core, "doc\(number)", properties: ["text": text])
                }
                var finalTexts = texts
                if let last = texts.last, texts.count > 1 {
                    // An update: doc0 takes the last text.
                    let current = try #require(try core.document(id: "doc0"))
                    try FullTextTestDatabase.save(core, "doc0", properties: ["text": last], base: current.revisionID)
                    finalTexts[0] = last
                }

                let tokenizer = try definition.makeTokenizer()
                var expected = Set<String>()
                if let term = tokenizer.term(for: query) {
                    for (number, text) in finalTexts.enumerated()
                    where tokenizer.tokens(in: text).contains(where: { $0.term == term }) {
                        expected.insert("doc\(number)")
                    }
                }
                let hits = try index.search(query, in: core)
                let found = hits.map(\.documentID)
                // Without offsets a single term takes a one-pass path: same documents, order and ranks.
                let counted = try index.search(query, in: core, offsets: false)
                #expect(counted.map(\.documentID) == found)
                #expect(zip(counted, hits).allSatisfy { abs($0.rank - $1.rank) < 1e-9 })
                #expect(Set(found) == expected, "query \(query), language \(language ?? "none"), texts \(finalTexts)")
                #expect(found.count == Set(found).count)
            }
        }
    }
}
