import Foundation
import LiteDatabase
import LiteStorage
import PropertyBased
import TestSupport
import Testing
@testable import LiteText

/// The packed index (blocks per term, postings gathered per transaction and merged before the
/// commit) against ``NaiveFullTextSearch``: random documents with two properties, random saves,
/// updates, deletions and purges — alone, several in one transaction, in a transaction rolled
/// back, and with a search inside the transaction — then random match expressions (terms,
/// prefixes, phrases, column filters, AND/OR/NOT/NEAR). Same documents and ranks, best first.
@Suite(.ownThreads) struct FullTextModelTests {
    private static let words = [
        "pool", "pools", "swimming", "swim", "café", "cafe", "the", "and", "42", "東", "hôtel", "hotel",
        "beach", "garden", "quiet", "gardens", "running", "runs", "view", "or",
    ]
    private static let columns = ["title", "text"]

    /// Picks from a stream of random numbers.
    private struct Picker {
        let numbers: [Int]
        var next = 0
        mutating func pick(_ count: Int) -> Int {
            defer { next += 1 }
            return numbers.isEmpty ? 0 : numbers[next % numbers.count] % max(count, 1)
        }
        mutating func text() -> String {
            (0..<pick(9)).map { _ in FullTextModelTests.words[pick(FullTextModelTests.words.count)] }
                .joined(separator: [" ", ", ", ". ", "-"][pick(4)])
        }
        mutating func atom() -> String {
            let word = FullTextModelTests.words[pick(FullTextModelTests.words.count)]
            switch pick(7) {
            case 0: return String(word.prefix(3)) + "*"
            case 6: return String(word.prefix(1)) + "*"   // shorter than a group's prefix (FTS-16)
            case 1: return "\"\(word) \(FullTextModelTests.words[pick(FullTextModelTests.words.count)])\""
            case 2: return "\(FullTextModelTests.columns[pick(2)]):\(word)"
            default: return word
            }
        }
        mutating func query(depth: Int = 0) -> String {
            let left = atom()
            guard depth < 2 else { return left }
            switch pick(6) {
            case 0: return "\(left) \(query(depth: depth + 1))"
            case 1: return "\(left) OR \(query(depth: depth + 1))"
            case 2: return "\(left) NOT \(atom())"
            case 3: return "\(left) NEAR/2 \(atom())"
            case 4: return "(\(query(depth: depth + 1))) \(atom())"
            default: return left
            }
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func searchesEqualANaiveEvaluation(engine: StorageEngineKind) async {
        let script = Gen.int(in: 0...1_000_000).array(of: 20...160)
        let settings = Gen.int(in: 0...5)
        await propertyCheck(count: 30, input: script, settings) { numbers, setting in
            var picker = Picker(numbers: numbers)
            // Positions as a new index counts them (kept words only, FTS-24).
            let definition = FullTextIndexDefinition(name: "m", properties: Self.columns, language: [nil, "en", "fr"][setting % 3],
                                                     ignoresDiacritics: setting >= 3, stopWordsTakePositions: false)
            let tokenizer = try definition.makeTokenizer()
            try FullTextTestDatabase.withCore(engine) { core in
                var model: [String: [String?]] = [:]
                func save(_ id: String) throws {
                    var properties: [String: Any] = [:]
                    var texts: [String?] = []
                    for column in Self.columns {
                        switch picker.pick(5) {
                        case 0: texts.append(nil)                              // missing
                        case 1: properties[column] = 7; texts.append(nil)      // not a string
                        default: let text = picker.text(); properties[column] = text; texts.append(text)
                        }
                    }
                    let data = try JSONSerialization.data(withJSONObject: properties, options: [.sortedKeys])
                    let base = try core.document(id: id)?.revisionID
                    try FullTextTestDatabase.save(core, id, String(decoding: data, as: UTF8.self), base: base)
                    model[id] = texts
                }
                func change() throws {
                    let id = "doc\(picker.pick(12))"
                    switch picker.pick(4) {
                    case 0 where model[id] != nil:
                        let base = try core.document(id: id)?.revisionID
                        try core.saveRevision(id: id, base: base, deleted: true, policy: .lastWriteWins) { _ in }
                        model[id] = nil
                    case 1:
                        try core.purgeDocument(id: id)
                        model[id] = nil
                    default:
                        try save(id)
                    }
                }
                func check(_ index: FullTextIndex, _ query: String) throws {
                    guard let expression = try? MatchExpression.parse(query, tokenizer: tokenizer) else { return }
                    let expected = NaiveFullTextSearch(texts: model, tokenizer: tokenizer, columns: Self.columns).search(expression)
                    for offsets in [true, false] {
                        let hits = try index.search(query, in: core, offsets: offsets)
                        #expect(hits.map(\.documentID).sorted() == expected.map(\.id).sorted(), "\(query), offsets \(offsets)")
                        let ranks = Dictionary(uniqueKeysWithValues: expected.map { ($0.id, $0.rank) })
                        for hit in hits {
                            let want = ranks[hit.documentID] ?? .nan
                            #expect(abs(hit.rank - want) <= 1e-9 * max(1, abs(want)), "\(query): \(hit.documentID)")
                        }
                        // Best first; equal ranks in ID byte order.
                        for (a, b) in zip(hits, hits.dropFirst()) {
                            #expect(a.rank > b.rank || (a.rank == b.rank && Array(a.documentID.utf8).lexicographicallyPrecedes(Array(b.documentID.utf8))))
                        }
                        // In ID order for the query engine: the same hits.
                        let unordered = try index.search(query, in: core, offsets: offsets, byRank: false)
                        #expect(unordered.map(\.documentID) == hits.map(\.documentID).sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) })
                    }
                }

                for _ in 0..<picker.pick(6) { try change() }
                let index = try FullTextIndex.create(definition, in: core)
                for _ in 0..<(4 + picker.pick(8)) {
                    switch picker.pick(5) {
                    case 0:
                        // Several changes in one transaction (a document may change twice).
                        try core.inTransaction { _ in for _ in 0..<(2 + picker.pick(4)) { try change() } }
                    case 1:
                        // A rolled-back transaction leaves no trace.
                        let before = model
                        struct RollBack: Error {}
                        _ = try? core.inTransaction { _ in
                            for _ in 0..<(1 + picker.pick(3)) { try change() }
                            throw RollBack()
                        }
                        model = before
                    case 2:
                        // A search inside the transaction sees its changes.
                        try core.inTransaction { _ in
                            try change()
                            try check(index, picker.query())
                            try change()
                        }
                    default:
                        try change()
                    }
                }
                for _ in 0..<4 { try check(index, picker.query()) }
            }
        }
    }

    /// Enough documents per term that blocks split, move and empty: bulk saves, documents
    /// falling between existing ones, whole ranges deleted and purged, updates — each state
    /// compared with the naive evaluation.
    @Test(arguments: StorageEngineKind.allCases)
    func blocksSplitAndEmptyUnderManyDocuments(engine: StorageEngineKind) async {
        await propertyCheck(count: 3, input: Gen.int(in: 0...1_000_000).array(of: 50...80)) { numbers in
            var picker = Picker(numbers: numbers)
            let vocabulary = ["pool", "beach", "garden", "quiet"]
            let definition = FullTextIndexDefinition(name: "b", properties: ["text"], stopWordsTakePositions: false)
            let tokenizer = try definition.makeTokenizer()
            try FullTextTestDatabase.withCore(engine) { core in
                let index = try FullTextIndex.create(definition, in: core)
                var model: [String: [String?]] = [:]
                func save(_ id: String) throws {
                    let text = (0..<(1 + picker.pick(4))).map { _ in vocabulary[picker.pick(vocabulary.count)] }.joined(separator: " ")
                    let base = try core.document(id: id)?.revisionID
                    try FullTextTestDatabase.save(core, id, properties: ["text": text], base: base)
                    model[id] = [text]
                }
                func check() throws {
                    let naive = NaiveFullTextSearch(texts: model, tokenizer: tokenizer, columns: ["text"])
                    for query in vocabulary + ["pool beach", "garden OR quiet", "pool NOT beach", "\"quiet pool\""] {
                        guard let expression = try MatchExpression.parse(query, tokenizer: tokenizer) else { continue }
                        let expected = naive.search(expression)
                        let hits = try index.search(query, in: core, offsets: picker.pick(2) == 0)
                        #expect(hits.map(\.documentID) .sorted() == expected.map(\.id).sorted(), "\(query)")
                        let ranks = Dictionary(uniqueKeysWithValues: expected.map { ($0.id, $0.rank) })
                        #expect(hits.allSatisfy { abs($0.rank - (ranks[$0.documentID] ?? .nan)) <= 1e-9 * max(1, $0.rank) }, "\(query)")
                    }
                }
                try core.inTransaction { _ in for number in stride(from: 0, to: 3_000, by: 2) { try save(String(format: "doc%05d", number)) } }
                try check()
                // Documents between the existing ones, in several transactions.
                for round in 0..<3 {
                    try core.inTransaction { _ in
                        for number in stride(from: 1 + round * 2, to: 3_000, by: 6 + picker.pick(20)) { try save(String(format: "doc%05d", number)) }
                    }
                }
                try check()
                // A whole range deleted, another purged, some updated.
                let low = picker.pick(2_000)
                try core.inTransaction { _ in
                    for number in low..<(low + 400 + picker.pick(600)) {
                        let id = String(format: "doc%05d", number)
                        guard model[id] != nil, let current = try core.document(id: id) else { continue }
                        try core.saveRevision(id: id, base: current.revisionID, deleted: true, policy: .lastWriteWins) { _ in }
                        model[id] = nil
                    }
                }
                let purgeFrom = picker.pick(2_500)
                try core.inTransaction { _ in
                    for number in purgeFrom..<(purgeFrom + 300) {
                        let id = String(format: "doc%05d", number)
                        try core.purgeDocument(id: id)
                        model[id] = nil
                    }
                    for _ in 0..<50 { try save(String(format: "doc%05d", picker.pick(3_000))) }
                }
                try check()
                // Everything removed: the index is empty again.
                try core.inTransaction { _ in
                    for id in model.keys { try core.purgeDocument(id: id) }
                }
                model = [:]
                try check()
                let store = try core.dataFile.byteKeyStore(definition.storeName)
                for tag: UInt8 in [0x01, 0x05] {   // no blocks, no groups
                    let cursor = try store.scan(prefix: [tag])
                    defer { cursor.close() }
                    #expect(try cursor.next() == nil)
                }
            }
        }
    }

    /// An index written in the previous layout (a key per term, document and property;
    /// format 2) is rebuilt when the database opens, and then answers as a new one.
    @Test(arguments: StorageEngineKind.allCases)
    func anIndexInTheOldFormatIsRebuiltOnOpen(engine: StorageEngineKind) throws {
        try FullTextTestDatabase.withCore(engine) { core in
            let definition = FullTextIndexDefinition(name: "old", properties: ["text"], language: "en")
            for (number, text) in ["a quiet pool", "the beach pools", "a garden"].enumerated() {
                try FullTextTestDatabase.save(core, "doc\(number)", properties: ["text": text])
            }
            let index = try FullTextIndex.create(definition, in: core)
            let expected = try index.search("pool", in: core)
            // What format 2 left: its stats and a posting key, no blocks.
            try core.inTransaction { txn in
                let store = try core.dataFile.byteKeyStore(definition.storeName)
                try store.delete(range: ByteKeyRange(lower: [0x01], upper: [0x02]), in: txn)
                try store.put([0x01] + Array("pool".utf8) + [0x00] + Array("doc0".utf8) + [0x00, 0x00], [3, 1, 2, 2, 4], in: txn)
                try store.put(FullTextPostings.statsKey, FullTextPostings.encodeCounts([3, 7, Int(try core.documents.lastSequence()), 2]), in: txn)
            }
            #expect(throws: TextAnalysisError.self) { try index.search("pool", in: core) }
            try FullTextIndex.openAll(in: core)
            #expect(try index.search("pool", in: core) == expected)
            #expect(expected.map(\.documentID).sorted() == ["doc0", "doc1"])
        }
    }

    /// An index written in format 3 (every term with a first block of its own, no groups) is
    /// rebuilt when the database opens, and then answers as a new one, with its rare terms
    /// packed in groups.
    @Test(arguments: StorageEngineKind.allCases)
    func anIndexInFormat3IsRebuiltOnOpen(engine: StorageEngineKind) throws {
        try FullTextTestDatabase.withCore(engine) { core in
            let definition = FullTextIndexDefinition(name: "three", properties: ["text"], language: "en")
            let texts = ["a quiet pool", "the beach pools", "a garden", "quiet gardens by the pool", "zebra"]
            for (number, text) in texts.enumerated() {
                try FullTextTestDatabase.save(core, "doc\(number)", properties: ["text": text])
            }
            let index = try FullTextIndex.create(definition, in: core)
            let queries = ["pool", "quiet", "garden", "zebra", "po*", "g*", "quiet pool", "\"quiet pool\""]
            let expected = try queries.map { try index.search($0, in: core) }
            #expect(expected[0].map(\.documentID).sorted() == ["doc0", "doc1", "doc3"])
            // What format 3 wrote for the same postings: each term in a first block of its own
            // (a zero directory count, then its postings), and a stats record saying 3.
            try core.inTransaction { txn in
                let store = try core.dataFile.byteKeyStore(definition.storeName)
                let cursor = try store.scan(prefix: [0x05])
                var groups: [[UInt8]] = []
                while let entry = try cursor.next() { groups.append(entry.value) }
                cursor.close()
                #expect(!groups.isEmpty)
                for group in groups {
                    for member in try FullTextTermGroup.members(of: group) {
                        try store.put(FullTextPostings.blockKey(term: member.term, firstDocumentID: []), [0] + member.postings, in: txn)
                    }
                }
                try store.delete(range: ByteKeyRange(prefix: [0x05]), in: txn)
                var stats = try FullTextPostings.decodeCounts(try #require(try store.get(FullTextPostings.statsKey)))
                stats[3] = 3
                try store.put(FullTextPostings.statsKey, FullTextPostings.encodeCounts(stats), in: txn)
            }
            #expect(throws: TextAnalysisError.self) { try index.search("pool", in: core) }
            try FullTextIndex.openAll(in: core)
            #expect(try queries.map { try index.search($0, in: core) } == expected)
            let store = try core.dataFile.byteKeyStore(definition.storeName)
            let cursor = try store.scan(prefix: [0x05])
            defer { cursor.close() }
            #expect(try cursor.next() != nil)
        }
    }

    /// An index written in format 4 (with a word-count entry `0x02 docID` per document) is
    /// rebuilt when the database opens: the entries are gone, and it answers as before, also
    /// after updates and deletions that need a document's old word counts.
    @Test(arguments: StorageEngineKind.allCases)
    func anIndexInFormat4IsRebuiltOnOpen(engine: StorageEngineKind) throws {
        try FullTextTestDatabase.withCore(engine) { core in
            let definition = FullTextIndexDefinition(name: "four", properties: ["text"], language: "en")
            let texts = ["a quiet pool", "the beach pools", "a garden", "quiet gardens by the pool", "zebra"]
            for (number, text) in texts.enumerated() {
                try FullTextTestDatabase.save(core, "doc\(number)", properties: ["text": text])
            }
            let index = try FullTextIndex.create(definition, in: core)
            let queries = ["pool", "quiet", "garden", "zebra", "po*", "quiet pool", "\"quiet pool\""]
            let expected = try queries.map { try index.search($0, in: core) }
            let store = try core.dataFile.byteKeyStore(definition.storeName)
            func wordCountEntries() throws -> Int {
                let cursor = try store.scan(prefix: [0x02])
                defer { cursor.close() }
                var count = 0
                while try cursor.next() != nil { count += 1 }
                return count
            }
            #expect(try wordCountEntries() == 0)
            // What format 4 added: the word counts of each document, and a stats record saying 4.
            try core.inTransaction { txn in
                for (number, text) in texts.enumerated() {
                    let words = text.split(separator: " ").filter { !["a", "the", "by"].contains($0) }.count
                    try store.put([0x02] + Array("doc\(number)".utf8), FullTextPostings.encodeCounts([words]), in: txn)
                }
                var stats = try FullTextPostings.decodeCounts(try #require(try store.get(FullTextPostings.statsKey)))
                stats[3] = 4
                try store.put(FullTextPostings.statsKey, FullTextPostings.encodeCounts(stats), in: txn)
            }
            #expect(throws: TextAnalysisError.self) { try index.search("pool", in: core) }
            try FullTextIndex.openAll(in: core)
            #expect(try queries.map { try index.search($0, in: core) } == expected)
            #expect(try wordCountEntries() == 0)

            // Changes after it keep the totals a rebuild computes (ranks depend on them).
            try core.inTransaction { _ in
                try FullTextTestDatabase.save(core, "doc1", properties: ["text": "pool pool quiet beach"],
                                              base: try core.document(id: "doc1")?.revisionID)
                try FullTextTestDatabase.save(core, "doc5", properties: ["text": "a pool by the quiet garden"])
            }
            let changed = try queries.map { try index.search($0, in: core) }
            try core.inTransaction { _ in try FullTextIndex.delete(definition.name, in: core) }
            let rebuilt = try FullTextIndex.create(definition, in: core)
            #expect(try queries.map { try rebuilt.search($0, in: core) } == changed)
        }
    }
}
