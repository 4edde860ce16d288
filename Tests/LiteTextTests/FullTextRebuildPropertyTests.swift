import LiteDatabase
import LiteStorage
import PropertyBased
import TestSupport
import Testing
@testable import LiteText

/// A rebuild encodes each term's postings straight into blocks (no merge); a write transaction
/// merges what it gathered into the blocks. Both must write the same store: for random
/// documents (often sharing terms, so a term's postings fill several 4 KB blocks), creating
/// the index over them equals creating it empty and saving them in one transaction, in ID order.
/// Picks from 500 up are rare words (`r500`…`r1000`): a few documents each, packed in groups
/// (FTS-16), ten to a three-byte prefix, so a group may fill and give terms blocks of their own.
@Suite(.ownThreads) struct FullTextRebuildPropertyTests {
    private static let vocabulary = ["pool", "Pools", "quiet", "garden", "gardens", "the", "café", "東", "42", "running"]

    private static func word(_ pick: Int) -> String {
        pick >= 500 ? "r\(pick)" : vocabulary[pick % vocabulary.count]
    }

    /// Every entry of the index's store but the definition (JSON, whose key order may vary).
    private static func entries(_ core: DatabaseCore, _ definition: FullTextIndexDefinition) throws -> [ByteKeyEntry] {
        let cursor = try core.dataFile.byteKeyStore(definition.storeName).scanAll()
        defer { cursor.close() }
        var entries: [ByteKeyEntry] = []
        while let entry = try cursor.next() {
            if entry.key != FullTextPostings.definitionKey { entries.append(entry) }
        }
        return entries
    }

    @Test(arguments: StorageEngineKind.allCases)
    func aRebuildWritesWhatATransactionMerges(engine: StorageEngineKind) async {
        let documents = Gen.int(in: 0...1_000).array(of: 0...24).array(of: 1...600)
        let languages = Gen.int(in: 0...1)
        await propertyCheck(count: 8, input: documents, languages) { picks, language in
            let definition = FullTextIndexDefinition(name: "r", properties: ["text", "title"],
                                                     language: [nil, "en"][language])
            func save(_ core: DatabaseCore) throws {
                for (number, words) in picks.enumerated() {
                    let text = words.map(Self.word).joined(separator: " ")
                    let title = words.first.map { Self.vocabulary[($0 / 10) % Self.vocabulary.count] } ?? ""
                    try FullTextTestDatabase.save(core, String(format: "doc%05d", number),
                                                  properties: ["text": text, "title": title])
                }
            }
            try FullTextTestDatabase.withCore(engine) { core in
                _ = try FullTextIndex.create(definition, in: core)
                try core.inTransaction { _ in try save(core) }
                let merged = try Self.entries(core, definition)

                try core.inTransaction { _ in try FullTextIndex.delete(definition.name, in: core) }
                let index = try FullTextIndex.create(definition, in: core)
                #expect(try Self.entries(core, definition) == merged)
                // And a search of the rebuilt index reads them back.
                let tokenizer = try definition.makeTokenizer()
                let wanted = tokenizer.term(for: "garden")
                let hits = try index.search("garden", in: core, offsets: false, byRank: false)
                let expected = picks.enumerated().filter { _, words in
                    words.contains { tokenizer.term(for: Self.word($0)) == wanted }
                        || words.first.map { tokenizer.term(for: Self.vocabulary[($0 / 10) % Self.vocabulary.count]) == wanted } == true
                }.map { String(format: "doc%05d", $0.offset) }
                #expect(hits.map(\.documentID) == expected)
            }
        }
    }
}
