import Fleece
import Foundation
import LiteDatabase
import LiteStorage
import TestSupport
import Testing
@testable import LiteText

/// Full-text indexes over real data (LiteCore's own FTS test data and expectations), the same on
/// every engine, kept in step with saves, deletions and purges.
@Suite(.ownThreads) struct FullTextIndexTests {
    private func withFixtureCore<T>(_ engine: StorageEngineKind, _ file: String,
                                    _ body: (DatabaseCore) throws -> T) throws -> T {
        try FullTextTestDatabase.withFixtureCore(engine, file, body)
    }

    private func save(_ core: DatabaseCore, _ id: String, _ json: String, base: RevisionID? = nil) throws {
        try FullTextTestDatabase.save(core, id, json, base: base)
    }

    /// LiteCore's c4QueryTest "FTS single property": the matches and their byte offsets.
    @Test(arguments: StorageEngineKind.allCases)
    func aSinglePropertyIndexFindsTheWordAndItsOffsets(engine: StorageEngineKind) throws {
        try withFixtureCore(engine, "names_100.json") { core in
            let index = try FullTextIndex.create(
                FullTextIndexDefinition(name: "byStreet", properties: ["contact.address.street"]), in: core)
            let hits = try index.search("Hwy", in: core)
            #expect(hits.map(\.documentID).sorted() == ["0000013", "0000015", "0000043", "0000044", "0000052"])
            let offsets = Dictionary(uniqueKeysWithValues: hits.map { ($0.documentID, $0.offsets) })
            #expect(offsets["0000013"] == [.init(column: 0, byteRange: 10..<13)])
            #expect(offsets["0000015"] == [.init(column: 0, byteRange: 11..<14)])
            #expect(offsets["0000043"] == [.init(column: 0, byteRange: 12..<15)])
            #expect(offsets["0000052"] == [.init(column: 0, byteRange: 11..<14)])
        }
    }

    /// LiteCore's "FTS two indexes AND" on the same data.
    @Test(arguments: StorageEngineKind.allCases)
    func twoIndexesIntersect(engine: StorageEngineKind) throws {
        try withFixtureCore(engine, "names_100.json") { core in
            let street = try FullTextIndex.create(FullTextIndexDefinition(name: "byStreet", properties: ["contact.address.street"]), in: core)
            let city = try FullTextIndex.create(FullTextIndexDefinition(name: "byCity", properties: ["contact.address.city"]), in: core)
            let both = Set(try street.search("Hwy", in: core).map(\.documentID))
                .intersection(try city.search("Santa", in: core).map(\.documentID))
            #expect(both == ["0000015"])
        }
    }

    /// The iOS tests' testWhereMatch: two sentences hold both words.
    @Test(arguments: StorageEngineKind.allCases)
    func sentencesWithBothWords(engine: StorageEngineKind) throws {
        try withFixtureCore(engine, "sentences.json") { core in
            let index = try FullTextIndex.create(FullTextIndexDefinition(name: "sentence", properties: ["sentence"]), in: core)
            #expect(try index.search("Dummie woman", in: core).count == 2)
            #expect(try index.search("Dummie OR woman", in: core).count >= 2)
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func phrasesPrefixesNearAndNot(engine: StorageEngineKind) throws {
        try withFixtureCore(engine, "sentences.json") { core in
            let index = try FullTextIndex.create(FullTextIndexDefinition(name: "s", properties: ["sentence"], language: "en"), in: core)
            let stormy = try index.search("\"dark and stormy night\"", in: core)
            #expect(stormy.map(\.documentID) == ["0000001"])
            #expect(try index.search("\"stormy dark\"", in: core).isEmpty)
            #expect(try index.search("storm*", in: core).map(\.documentID).contains("0000001"))
            #expect(try index.search("dark NEAR/2 night", in: core).map(\.documentID).contains("0000001"))
            #expect(try !index.search("dark NEAR/0 night", in: core).map(\.documentID).contains("0000001"))
            let london = Set(try index.search("London", in: core).map(\.documentID))
            let londonNotRain = Set(try index.search("London NOT rain", in: core).map(\.documentID))
            #expect(londonNotRain == london.subtracting(try index.search("rain", in: core).map(\.documentID)))
            #expect(!londonNotRain.isEmpty)
        }
    }

    /// A new index counts kept words' positions only, as 2.8's FTS4 table (FTS-24): the phrase
    /// of the kept words matches across the stop words.
    @Test(arguments: StorageEngineKind.allCases)
    func newIndexesCountKeptWordsOnly(engine: StorageEngineKind) throws {
        try withFixtureCore(engine, "sentences.json") { core in
            let index = try FullTextIndex.create(FullTextIndexDefinition(name: "s", properties: ["sentence"], language: "en"), in: core)
            #expect(index.definition.stopWordsTakePositions == false)
            #expect(try index.search("\"dark stormy night\"", in: core).map(\.documentID) == ["0000001"])
            #expect(try index.search("dark NEAR/0 stormy", in: core).map(\.documentID).contains("0000001"))
            // Asking again without saying how stop words count accepts it.
            _ = try FullTextIndex.create(FullTextIndexDefinition(name: "s", properties: ["sentence"], language: "en"), in: core)
        }
    }

    /// Stemming: "torrent" finds "torrents"; more and rarer matches rank higher.
    @Test(arguments: StorageEngineKind.allCases)
    func stemmingAndRanking(engine: StorageEngineKind) throws {
        try FullTextTestDatabase.withCore(engine) { core in
            try save(core, "once", #"{"text":"the cat sat on the mat near the other animals in the room"}"#)
            try save(core, "twice", #"{"text":"cats and more cats"}"#)
            try save(core, "rare", #"{"text":"a cat and an aardvark"}"#)
            try save(core, "none", #"{"text":"nothing to see"}"#)
            let index = try FullTextIndex.create(FullTextIndexDefinition(name: "t", properties: ["text"], language: "en"), in: core)
            let cats = try index.search("cat", in: core)
            #expect(cats.map(\.documentID) == ["twice", "rare", "once"])
            let rare = try index.search("cat OR aardvark", in: core)
            #expect(rare.first?.documentID == "rare")
        }
    }

    /// Saves, updates, deletions and purges reach the index in their transaction; rebuild
    /// (reindex) gives the same answers.
    @Test(arguments: StorageEngineKind.allCases)
    func theIndexFollowsEveryChange(engine: StorageEngineKind) throws {
        try FullTextTestDatabase.withCore(engine) { core in
            let index = try FullTextIndex.create(FullTextIndexDefinition(name: "t", properties: ["title", "body"]), in: core)
            try save(core, "a", #"{"title":"red apple","body":"crisp"}"#)
            try save(core, "b", #"{"title":"green pear","body":"red skin"}"#)
            #expect(Set(try index.search("red", in: core).map(\.documentID)) == ["a", "b"])
            #expect(try index.search("title:red", in: core).map(\.documentID) == ["a"])
            #expect(try index.search("body:red", in: core).map(\.documentID) == ["b"])

            let a = try #require(try core.document(id: "a"))
            try save(core, "a", #"{"title":"yellow banana","body":"soft"}"#, base: a.revisionID)
            #expect(try index.search("red", in: core).map(\.documentID) == ["b"])
            #expect(try index.search("banana", in: core).map(\.documentID) == ["a"])

            let b = try #require(try core.document(id: "b"))
            _ = try core.saveRevision(id: "b", base: b.revisionID, deleted: true, policy: .failOnConflict) { _ in }
            #expect(try index.search("red", in: core).isEmpty)
            try core.purgeDocument(id: "a")
            #expect(try index.search("banana", in: core).isEmpty)

            try save(core, "c", #"{"title":"red again","body":42}"#)
            let before = try index.search("red", in: core)
            try core.reindex()
            #expect(try index.search("red", in: core) == before)
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func aSecondDefinitionUnderTheSameNameIsRefused(engine: StorageEngineKind) throws {
        try withFixtureCore(engine, "sentences.json") { core in
            _ = try FullTextIndex.create(FullTextIndexDefinition(name: "s", properties: ["sentence"]), in: core)
            #expect(throws: TextAnalysisError.self) {
                _ = try FullTextIndex.create(FullTextIndexDefinition(name: "s", properties: ["other"]), in: core)
            }
            #expect(throws: TextAnalysisError.self) {
                _ = try FullTextIndex.create(FullTextIndexDefinition(name: "x", properties: ["sentence"], language: "klingon"), in: core)
            }
        }
    }
}
