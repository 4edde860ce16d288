import LiteDatabase
import TestSupport
import Testing
@testable import LiteText

/// A 10 MB text property indexes (occurrences are encoded as they are met, never held as token
/// objects), is found by its words with the right offsets, and leaves the index when deleted.
@Suite(.ownThreads) struct FullTextHugeDocumentTests {
    /// About 10 MB of words from a 5,000-word vocabulary, ending in one rare word.
    private static func hugeText() -> (text: String, needleStart: Int, lastWordCount: Int) {
        var text = ""
        text.reserveCapacity(10_500_000)
        var number = 0, lastWordCount = 0
        while text.utf8.count < 10_000_000 {
            text += "word\(number % 5_000) "
            if number % 5_000 == 4_999 { lastWordCount += 1 }
            number += 1
        }
        let start = text.utf8.count
        text += "needle"
        return (text, start, lastWordCount)
    }

    @Test(arguments: StorageEngineKind.allCases)
    func aTenMegabyteTextPropertyIsIndexedAndFound(engine: StorageEngineKind) throws {
        let (text, needleStart, lastWordCount) = Self.hugeText()
        try FullTextTestDatabase.withCore(engine) { core in
            let index = try FullTextIndex.create(FullTextIndexDefinition(name: "big", properties: ["text"]), in: core)
            try FullTextTestDatabase.save(core, "small", properties: ["text": "word17 and a needle"])
            try FullTextTestDatabase.save(core, "huge", properties: ["text": text])
            let needle = try index.search("needle", in: core)
            #expect(Set(needle.map(\.documentID)) == ["huge", "small"])
            let hugeHit = try #require(needle.first { $0.documentID == "huge" })
            #expect(hugeHit.offsets == [.init(column: 0, byteRange: needleStart..<(needleStart + 6))])
            let common = try index.search("word4999", in: core)
            #expect(common.map(\.documentID) == ["huge"])
            #expect(common.first?.offsets.count == lastWordCount)

            let huge = try #require(try core.document(id: "huge"))
            _ = try core.saveRevision(id: "huge", base: huge.revisionID, deleted: true, policy: .failOnConflict) { _ in }
            #expect(try index.search("needle", in: core).map(\.documentID) == ["small"])
            #expect(try index.search("word4999", in: core).isEmpty)
        }
    }
}
