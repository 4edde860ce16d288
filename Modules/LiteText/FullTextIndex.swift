import Fleece
import FoundationEssentials
import LiteDatabase
import LiteStorage
import LiteSupport

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
    /// The postings the current write transaction changed, merged into the blocks just before
    /// it commits (see ``FullTextPendingPostings``).
    private let pending = Locked<FullTextPendingPostings?>(nil)
    /// Set when the index was made inside a transaction begun before it existed: that
    /// transaction commits without telling the index, so each change is merged at once.
    private let mergesAtOnce = Locked(false)

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
        // A new index counts the positions of kept words only, as 2.8's FTS4 table does, so
        // phrases and NEAR answer alike (FTS-24); one stored without the setting keeps its own.
        var counted = definition
        if counted.stopWordsTakePositions == nil { counted.stopWordsTakePositions = false }
        let made = try FullTextIndex(definition: counted)
        let index = core.indexer(named: made.storeName) { made } as? FullTextIndex ?? made
        guard index.definition.satisfies(definition) else {
            throw TextAnalysisError("a full-text index named \"\(definition.name)\" already exists with "
                                    + "another definition; delete it first")
        }
        if core.dataFile.isInTransaction { index.mergesAtOnce.withLock { $0 = true } }
        try core.inTransaction { txn in
            let store = try core.dataFile.byteKeyStore(index.storeName)
            if let existing = try store.get(FullTextPostings.definitionKey) {
                let stored = try JSONDecoder().decode(FullTextIndexDefinition.self, from: Data(existing))
                guard stored.satisfies(definition) else {
                    throw TextAnalysisError("a full-text index named \"\(definition.name)\" already exists with "
                                            + "another definition; delete it first")
                }
                return
            }
            try store.put(FullTextPostings.definitionKey, Array(try JSONEncoder().encode(index.definition)), in: txn)
            try index.rebuild(in: core, txn: txn)
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

    package func documentChanged(_ change: DocumentBodyChange, in core: DatabaseCore, txn: borrowing WriteTransaction) throws {
        let store = try core.dataFile.byteKeyStore(storeName)
        let documentID = Array(change.documentID.utf8)
        try pending.withLock { pending in
            var gathered = try pendingOfThisTransaction(pending, store, txn)
            pending = nil   // so `gathered` is the only reference while it grows
            defer { pending = gathered }
            let ordinal = gathered.ordinal(of: documentID)
            // The old body's terms lose the document (found by tokenizing it again, which also
            // gives the words it counted: the index follows every change, so what the old body
            // holds is what was indexed).
            if let old = change.oldBody,
               let counts = try gathered.remove(document: ordinal, texts: try texts(of: old, core: core), tokenizer: tokenizer) {
                gathered.documentsDelta -= 1
                gathered.wordsDelta -= counts.reduce(0, +)
            }
            if let new = change.newBody,
               let counts = try gathered.add(document: ordinal, texts: try texts(of: new, core: core), tokenizer: tokenizer) {
                gathered.documentsDelta += 1
                gathered.wordsDelta += counts.reduce(0, +)
            }
            gathered.sequence = max(gathered.sequence, Int(clamping: change.sequence))
            if gathered.estimatedBytes > Self.pendingBytes || mergesAtOnce.withLock({ $0 }) {
                try merge(gathered, into: store, knownEmpty: false, in: txn)
                gathered = FullTextPendingPostings(token: [], documentsMayRepeat: true)
            }
        }
    }

    /// The postings this write transaction gathered so far, or new ones (marking the store).
    private func pendingOfThisTransaction(_ pending: FullTextPendingPostings?,
                                          _ store: any ByteKeyStore, _ txn: borrowing WriteTransaction) throws -> FullTextPendingPostings {
        // The token is stored inside the transaction that gathers: when that transaction was
        // rolled back, it is gone and so are its postings.
        if let pending, !pending.token.isEmpty, try store.get(FullTextPostings.pendingKey) == pending.token { return pending }
        var token = [UInt8](repeating: 0, count: 8)
        withUnsafeBytes(of: UInt64.random(in: 1...UInt64.max)) { token = Array($0) }
        try store.put(FullTextPostings.pendingKey, token, in: txn)
        return FullTextPendingPostings(token: token, documentsMayRepeat: true)
    }

    /// Merges what the committing transaction gathered into the term blocks.
    package func transactionWillCommit(from before: DocumentStoreState, to after: DocumentStoreState,
                                       in core: DatabaseCore, txn: borrowing WriteTransaction) throws {
        try mergePending(in: core, txn: txn)
    }

    /// Merges the gathered postings when they belong to the calling thread's transaction, or
    /// to a committed one (a transaction that began before the index existed commits without
    /// telling it).
    private func mergePending(in core: DatabaseCore, txn: borrowing WriteTransaction) throws {
        let store = try core.dataFile.byteKeyStore(storeName)
        try pending.withLock { pending in
            guard let gathered = pending, !gathered.token.isEmpty else { return }
            guard try store.get(FullTextPostings.pendingKey) == gathered.token else { return }
            pending = nil
            try merge(gathered, into: store, knownEmpty: false, in: txn)
        }
    }

    /// Writes gathered postings into the store and updates the totals.
    private func merge(_ gathered: FullTextPendingPostings, into store: any ByteKeyStore, knownEmpty: Bool,
                       in txn: borrowing WriteTransaction) throws {
        try gathered.write(into: store, knownEmpty: knownEmpty, in: txn)
        var stats = try readStats(store)
        stats.documents = max(0, stats.documents + gathered.documentsDelta)
        stats.words = max(0, stats.words + gathered.wordsDelta)
        stats.sequence = max(stats.sequence, gathered.sequence)
        try writeStats(stats, to: store, in: txn)
        if !gathered.token.isEmpty { try store.delete(FullTextPostings.pendingKey, in: txn) }
    }

    package func rebuild(in core: DatabaseCore, txn: borrowing WriteTransaction) throws {
        let store = try core.dataFile.byteKeyStore(storeName)
        pending.withLock { $0 = nil }
        try store.delete(range: ByteKeyRange(lower: [0x01], upper: nil), in: txn)
        // Every document's postings are gathered in memory and each term's blocks written once,
        // in key order (a B-tree takes sorted inserts several times faster); a huge database is
        // written in several rounds, the later ones merged into the blocks. The stats come
        // last (the merge writes them).
        let lastSequence = Int(clamping: try core.documents.lastSequence())
        var gathered = FullTextPendingPostings(token: [], documentsMayRepeat: false)
        gathered.sequence = lastSequence
        var storeIsEmpty = true
        let keys = FleeceKeyTable(core.sharedKeys)
        let empty = try FleeceDocument(bytes: StoredDocument.emptyDictionary, trusted: true)
        // A borrowing document pointed at each record's current body in turn (no tree decoding,
        // no copy); `empty` lends it its first bytes and outlives it.
        let borrowed = try empty.withUnsafeBytes { try FleeceDocument(borrowing: $0, keys: keys) }
        try core.documents.visitRecords(options: RecordEnumerationOptions()) { view in
            guard let body = try StoredDocument.currentBody(inRecordBody: view.body) else { return true }
            let root: FleeceValue
            if body.count > 0 {
                try borrowed.rebind(borrowing: body)
                root = borrowed.root
            } else {
                root = empty.root
            }
            let ordinal = gathered.ordinal(of: Array(view.key))
            if let counts = try gathered.add(document: ordinal, texts: paths.map { $0.evaluate(on: root) }, tokenizer: tokenizer) {
                gathered.documentsDelta += 1
                gathered.wordsDelta += counts.reduce(0, +)
            }
            if gathered.estimatedBytes > Self.rebuildBytes {
                try merge(gathered, into: store, knownEmpty: storeIsEmpty, in: txn)
                storeIsEmpty = false
                gathered = FullTextPendingPostings(token: [], documentsMayRepeat: false)
                gathered.sequence = lastSequence
            }
            return true
        }
        try merge(gathered, into: store, knownEmpty: storeIsEmpty, in: txn)
    }

    /// Each indexed property's value in a body (nil where it is missing; values that are not
    /// strings are not indexed).
    private func texts(of body: [UInt8], core: DatabaseCore) throws -> [FleeceValue?] {
        let document = try FleeceDocument(bytes: body.isEmpty ? StoredDocument.emptyDictionary : body,
                                          sharedKeys: core.sharedKeys, trusted: true)
        return paths.map { $0.evaluate(on: document.root) }
    }

    /// How many bytes of postings a rebuild gathers before writing them.
    private static let rebuildBytes = 64 << 20
    /// How many bytes of postings a transaction gathers before merging them (it merges the
    /// rest before it commits).
    private static let pendingBytes = 16 << 20

    /// The index's totals, the highest document sequence it has seen, and its posting format.
    private struct Stats {
        var documents: Int
        var words: Int
        var sequence: Int
        var format: Int
    }

    private func readStats(_ store: any ByteKeyStore) throws -> Stats {
        guard let bytes = try store.get(FullTextPostings.statsKey) else {
            return Stats(documents: 0, words: 0, sequence: 0, format: FullTextPostings.currentFormat)
        }
        let values = try FullTextPostings.decodeCounts(bytes)
        // Older indexes kept two values (format 1, no sequence: rebuilt at the next open).
        guard values.count == 2 || values.count == 4 else {
            throw TextAnalysisError("full-text index \"\(definition.name)\" is damaged")
        }
        return values.count == 4 ? Stats(documents: values[0], words: values[1], sequence: values[2], format: values[3])
                                 : Stats(documents: values[0], words: values[1], sequence: 0, format: 1)
    }

    private func writeStats(_ stats: Stats, to store: any ByteKeyStore, in txn: borrowing WriteTransaction) throws {
        try store.put(FullTextPostings.statsKey,
                      FullTextPostings.encodeCounts([stats.documents, stats.words, stats.sequence, stats.format]), in: txn)
    }

    /// Rebuilds the index when the documents changed without it — another program (the real
    /// Couchbase Lite, on a file whose FTS4 tables it keeps itself) wrote to the file, which
    /// shows as a last sequence beyond the highest the index saw — or when an older version of
    /// this module wrote it in another posting format (format 2 had a key per term, document
    /// and property, decisions FTS-6; format 3 gave every term blocks of its own, FTS-16;
    /// format 4 also kept a word-count entry per document, FTS-18).
    func catchUp(in core: DatabaseCore) throws {
        try core.inTransaction { txn in
            if try isBehind(in: core) { try rebuild(in: core, txn: txn) }
        }
    }

    /// Whether ``catchUp(in:)`` would rebuild the index (a read, for a read-only open to decide
    /// whether it must open for writing to answer correctly).
    package func isBehind(in core: DatabaseCore) throws -> Bool {
        let stats = try readStats(try core.dataFile.byteKeyStore(storeName))
        let lastSequence = Int(clamping: try core.documents.lastSequence())
        return stats.format != FullTextPostings.currentFormat || stats.sequence < lastSequence
    }

    // MARK: Search

    /// The documents matching `text` (the match syntax of ``MatchExpression``), best first.
    ///
    /// - Parameters:
    ///   - offsets: whether hits carry the matched words' offsets (without, plain terms are
    ///     counted, not decoded; phrase and NEAR words still have theirs).
    ///   - byRank: best first (ties in document-ID byte order); false: in document-ID byte
    ///     order (what the query engine reads by).
    package func search(_ text: String, in core: DatabaseCore, offsets: Bool = true,
                        byRank: Bool = true) throws -> [FullTextHit] {
        guard let expression = try MatchExpression.parse(text, tokenizer: tokenizer) else { return [] }
        try mergePendingBeforeReading(in: core)
        return try core.dataFile.withReadSnapshot {
            let store = try core.dataFile.byteKeyStore(storeName)
            let stats = try readStats(store)
            guard stats.format == FullTextPostings.currentFormat else {
                throw TextAnalysisError("full-text index \"\(definition.name)\" was written by an older version; "
                                        + "open the database for writing once to rebuild it")
            }
            var search = FullTextSearch(store: store, columns: definition.properties, wantsOffsets: offsets)
            if !offsets, case .term(let term) = expression, !term.isPrefix {
                return try search.rankSingleTerm(term, documentCount: stats.documents, totalWords: stats.words,
                                                 byRank: byRank)
            }
            let matches = try search.evaluate(expression)
            return try search.rank(matches, documentCount: stats.documents, totalWords: stats.words, byRank: byRank)
        }
    }

    /// Makes the calling thread's own uncommitted changes visible to its search (inside its
    /// write transaction), and merges postings a transaction committed without telling the
    /// index (it began before the index existed).
    private func mergePendingBeforeReading(in core: DatabaseCore) throws {
        guard let token = pending.withLock({ $0?.token }), !token.isEmpty else { return }
        if try core.dataFile.isInTransaction
            || core.dataFile.byteKeyStore(storeName).get(FullTextPostings.pendingKey) == token {
            // Inside the caller's transaction this joins it.
            try core.inTransaction { txn in try mergePending(in: core, txn: txn) }
        }
    }
}
