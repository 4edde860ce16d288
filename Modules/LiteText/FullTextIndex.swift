import Fleece
import Foundation
import LiteDatabase
import LiteStorage

/// A full-text index of some properties of a database's documents, kept in one byte-key store
/// of the storage seam (so both engines hold it alike) and updated inside every write
/// transaction through the core's ``DocumentIndexer`` hook.
///
/// ```swift
/// let index = try FullTextIndex.create(FullTextIndexDefinition(name: "desc", properties: ["description"],
///                                                              language: "en"), in: core)
/// let hits = try index.search("\"full text\" OR sqlite")   // best first
/// ```
package final class FullTextIndex: DocumentIndexer {
    /// What is indexed and how.
    package let definition: FullTextIndexDefinition
    private let tokenizer: TextTokenizer
    private let paths: [FleecePath]
    private let storeName: String

    private init(definition: FullTextIndexDefinition) throws {
        self.definition = definition
        tokenizer = try definition.makeTokenizer()
        paths = try definition.properties.map { property in
            do {
                return try FleecePath(property)
            } catch {
                throw TextAnalysisError("full-text index \"\(definition.name)\": \"\(property)\" is not a property path")
            }
        }
        guard !paths.isEmpty, paths.count <= 255 else {
            throw TextAnalysisError("full-text index \"\(definition.name)\" needs 1 to 255 properties")
        }
        storeName = definition.storeName
    }

    /// Creates the index in `core`'s file, indexes every document, and keeps it up to date
    /// from then on (for every open instance of the file in this process).
    ///
    /// - Throws: when an index of that name exists with another definition, or on bad input.
    package static func create(_ definition: FullTextIndexDefinition, in core: DatabaseCore) throws -> FullTextIndex {
        LiteCoreFTS4Tokenizer.install()
        let made = try FullTextIndex(definition: definition)
        let index = core.indexer(named: made.storeName) { made } as? FullTextIndex ?? made
        guard index.definition == definition else {
            throw TextAnalysisError("a full-text index named \"\(definition.name)\" already exists with "
                                    + "another definition; delete it first")
        }
        try core.inTransaction {
            let store = try core.dataFile.byteKeyStore(index.storeName)
            if let existing = try store.get(FullTextPostings.definitionKey) {
                let stored = try JSONDecoder().decode(FullTextIndexDefinition.self, from: Data(existing))
                guard stored == definition else {
                    throw TextAnalysisError("a full-text index named \"\(definition.name)\" already exists with "
                                            + "another definition; delete it first")
                }
                return
            }
            try store.put(FullTextPostings.definitionKey, Array(try JSONEncoder().encode(definition)))
            try index.rebuild(in: core)
        }
        return index
    }

    /// The full-text indexes stored in `core`'s file, registered so they stay up to date (call
    /// when a database opens). Couchbase Lite's own full-text indexes in the file
    /// (FTS4 tables, 2.0's `kv_fts_map`, or definitions a conversion carried) get one of ours
    /// beside them the first time; the storage layer is given the FTS4 tokenizer so their tables
    /// stay writable.
    @discardableResult
    package static func openAll(in core: DatabaseCore) throws -> [FullTextIndex] {
        LiteCoreFTS4Tokenizer.install()
        var indexes: [FullTextIndex] = []
        for storeName in try core.dataFile.byteKeyStoreNames() where storeName.hasPrefix("fts:") {
            guard let bytes = try core.dataFile.byteKeyStore(storeName).get(FullTextPostings.definitionKey) else { continue }
            let definition = try JSONDecoder().decode(FullTextIndexDefinition.self, from: Data(bytes))
            let made = try FullTextIndex(definition: definition)
            if let index = core.indexer(named: made.storeName, orMake: { made }) as? FullTextIndex {
                if !core.dataFile.isReadOnly { try index.catchUp(in: core) }
                indexes.append(index)
            }
        }
        // Read-only (`cblite query`): the indexes answer as they are; nothing is built.
        guard !core.dataFile.isReadOnly else { return indexes }
        return indexes + (try adoptForeignIndexes(in: core))
    }

    /// The registered full-text index called `name` in `core`'s file, if any.
    package static func named(_ name: String, in core: DatabaseCore) -> FullTextIndex? {
        let storeName = FullTextIndexDefinition(name: name, properties: []).storeName
        return core.indexer(named: storeName) as? FullTextIndex
    }

    /// Removes the index `name` and its data.
    package static func delete(_ name: String, in core: DatabaseCore) throws {
        let storeName = FullTextIndexDefinition(name: name, properties: []).storeName
        core.removeIndexer(named: storeName)
        if try core.dataFile.byteKeyStoreNames().contains(storeName) {
            try core.dataFile.deleteByteKeyStore(storeName)
        }
    }

    // MARK: Maintenance

    package func documentChanged(_ change: DocumentBodyChange, in core: DatabaseCore) throws {
        let store = try core.dataFile.byteKeyStore(storeName)
        var stats = try readStats(store)
        if let old = change.oldBody {
            let removed = try unindex(change.documentID, body: old, in: store, core: core)
            if removed >= 0 { (stats.documents, stats.words) = (max(0, stats.documents - 1), max(0, stats.words - removed)) }
        }
        if let new = change.newBody {
            let added = try index(change.documentID, body: new, core: core, emit: store.put)
            (stats.documents, stats.words) = (stats.documents + 1, stats.words + added)
        }
        stats.sequence = max(stats.sequence, Int(clamping: change.sequence))
        try writeStats(stats, to: store)
    }

    package func rebuild(in core: DatabaseCore) throws {
        let store = try core.dataFile.byteKeyStore(storeName)
        try store.delete(range: ByteKeyRange(lower: [0x01], upper: nil))
        var stats = Stats(documents: 0, words: 0, sequence: Int(clamping: try core.documents.lastSequence()),
                          format: Stats.currentFormat)
        // Postings are written in key order, a batch at a time: a B-tree takes sorted inserts
        // several times faster than the term-major order documents would give.
        var batch: [(key: [UInt8], value: [UInt8])] = []
        var batchBytes = 0
        func flush() throws {
            batch.sort { FullTextPostings.precedes($0.key, $1.key) }
            for (key, value) in batch { try store.put(key, value) }
            batch.removeAll(keepingCapacity: true)
            batchBytes = 0
        }
        let enumerator = try core.documents.enumerate(options: RecordEnumerationOptions())
        while let record = try enumerator.next() {
            let document = try StoredDocument(record: record)
            guard let body = document.storedCurrentBody else { continue }
            stats.words += try index(record.key, body: body, core: core) { key, value in
                batch.append((key, value))
                batchBytes += key.count + value.count + 48
            }
            stats.documents += 1
            if batchBytes > Self.rebuildBatchBytes { try flush() }
        }
        try flush()
        try writeStats(stats, to: store)
    }

    /// The text of each indexed property of a body (nil where it is missing or not a string).
    private func texts(of body: [UInt8], core: DatabaseCore) throws -> [String?] {
        let document = try FleeceDocument(bytes: body.isEmpty ? StoredDocument.emptyDictionary : body,
                                          sharedKeys: core.sharedKeys, trusted: true)
        return paths.map { $0.evaluate(on: document.root)?.string }
    }

    /// How many bytes of postings a rebuild sorts before writing them.
    private static let rebuildBatchBytes = 16 << 20

    /// Makes a document's postings and hands each (key, value) to `emit`.
    /// - Returns: how many words it indexed.
    ///
    /// Occurrences are encoded as they are met, per distinct term, so a huge text (a 10 MB
    /// property) needs a few bytes per word and nothing per token object.
    private func index(_ documentID: String, body: [UInt8], core: DatabaseCore,
                       emit: (_ key: [UInt8], _ value: [UInt8]) throws -> Void) throws -> Int {
        let texts = try texts(of: body, core: core)
        guard texts.contains(where: { $0 != nil }) else { return 0 }
        var counts = [Int](repeating: 0, count: texts.count)
        var columns: [[String: FullTextPostings.OccurrenceList]] = []
        for (column, text) in texts.enumerated() {
            var byTerm: [String: FullTextPostings.OccurrenceList] = [:]
            if let text {
                tokenizer.forEachToken(in: text) { term, position, byteRange in
                    counts[column] += 1
                    byTerm[term, default: FullTextPostings.OccurrenceList()].append(position: position, byteRange: byteRange)
                }
            }
            columns.append(byTerm)
        }
        let total = counts.reduce(0, +)
        for (column, byTerm) in columns.enumerated() {
            for (term, occurrences) in byTerm {
                try emit(FullTextPostings.postingKey(term: term, documentID: documentID, column: column),
                         occurrences.encoded(documentLength: total))
            }
        }
        try emit(FullTextPostings.documentKey(documentID), FullTextPostings.encodeCounts(counts))
        return total
    }

    /// Removes a document's postings, found by tokenizing the body they were made from.
    /// - Returns: how many words it had indexed, or -1 when it was not indexed.
    private func unindex(_ documentID: String, body: [UInt8], in store: any ByteKeyStore, core: DatabaseCore) throws -> Int {
        guard let counts = try store.get(FullTextPostings.documentKey(documentID)) else { return -1 }
        for (column, text) in try texts(of: body, core: core).enumerated() {
            guard let text else { continue }
            var terms = Set<String>()
            tokenizer.forEachToken(in: text) { term, _, _ in terms.insert(term) }
            for term in terms {
                try store.delete(FullTextPostings.postingKey(term: term, documentID: documentID, column: column))
            }
        }
        try store.delete(FullTextPostings.documentKey(documentID))
        return try FullTextPostings.decodeCounts(counts).reduce(0, +)
    }

    /// The index's totals, the highest document sequence it has seen, and its posting format.
    private struct Stats {
        /// Format 2: each posting starts with its document's length.
        static let currentFormat = 2
        var documents: Int
        var words: Int
        var sequence: Int
        var format: Int
    }

    private func readStats(_ store: any ByteKeyStore) throws -> Stats {
        guard let bytes = try store.get(FullTextPostings.statsKey) else {
            return Stats(documents: 0, words: 0, sequence: 0, format: Stats.currentFormat)
        }
        let values = try FullTextPostings.decodeCounts(bytes)
        // Older indexes kept two values (format 1, no sequence: rebuilt at the next open).
        guard values.count == 2 || values.count == 4 else {
            throw TextAnalysisError("full-text index \"\(definition.name)\" is damaged")
        }
        return values.count == 4 ? Stats(documents: values[0], words: values[1], sequence: values[2], format: values[3])
                                 : Stats(documents: values[0], words: values[1], sequence: 0, format: 1)
    }

    private func writeStats(_ stats: Stats, to store: any ByteKeyStore) throws {
        try store.put(FullTextPostings.statsKey,
                      FullTextPostings.encodeCounts([stats.documents, stats.words, stats.sequence, stats.format]))
    }

    /// Rebuilds the index when the documents changed without it — another program (the real
    /// Couchbase Lite, on a file whose FTS4 tables it keeps itself) wrote to the file, which
    /// shows as a last sequence beyond the highest the index saw — or when an older version of
    /// this module wrote it in another posting format.
    func catchUp(in core: DatabaseCore) throws {
        try core.inTransaction {
            let store = try core.dataFile.byteKeyStore(storeName)
            let stats = try readStats(store)
            let lastSequence = Int(clamping: try core.documents.lastSequence())
            if stats.format != Stats.currentFormat || stats.sequence < lastSequence {
                try rebuild(in: core)
            }
        }
    }

    // MARK: Search

    /// The documents matching `text` (the match syntax of ``MatchExpression``), best first.
    ///
    /// - Parameter offsets: whether hits carry the matched words' offsets (without, plain
    ///   terms are counted, not decoded; phrase and NEAR words still have theirs).
    package func search(_ text: String, in core: DatabaseCore, offsets: Bool = true) throws -> [FullTextHit] {
        guard let expression = try MatchExpression.parse(text, tokenizer: tokenizer) else { return [] }
        return try core.dataFile.withReadSnapshot {
            let store = try core.dataFile.byteKeyStore(storeName)
            var search = FullTextSearch(store: store, columns: definition.properties, wantsOffsets: offsets)
            let stats = try readStats(store)
            if !offsets, case .term(let term) = expression,
               let hits = try search.rankSingleTerm(term, documentCount: stats.documents, totalWords: stats.words) {
                return hits
            }
            let matches = try search.evaluate(expression)
            return try search.rank(matches, documentCount: stats.documents, totalWords: stats.words)
        }
    }
}
