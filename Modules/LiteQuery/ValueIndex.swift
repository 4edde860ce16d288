import Fleece
import FoundationEssentials
import LiteDatabase
import LiteStorage
import LiteSupport

/// A value index: for every live document whose first indexed expression is not MISSING, an
/// entry keyed by the order-preserving encoding (``IndexKey``) of its expressions' values and
/// its ID, in the byte-key store `value:<name>`, kept in step inside every write transaction
/// through the core's ``DocumentIndexer`` hook. The planner scans it for equality and range
/// conditions on the first expression; candidates are always checked against the whole WHERE.
package final class ValueIndex: DocumentIndexer {
    /// The index's name.
    package let name: String
    /// Its definition: a JSON array of expressions.
    package let definition: String
    let expressions: [CompiledExpression]
    let storeName: String

    static let definitionKey: [UInt8] = [0x00]
    static let entryTag: UInt8 = 0x01

    private init(name: String, definition: String) throws {
        self.name = name
        self.definition = definition
        let compiled = try CompiledQuery(json: #"{"WHAT":"# + definition + "}", databaseName: "_")
        guard !compiled.columns.isEmpty else { throw QueryError("a value index needs at least one expression") }
        guard compiled.parameterNames.isEmpty else { throw QueryError("a value index cannot use parameters") }
        expressions = compiled.columns.map(\.expression)
        storeName = Self.storeName(name)
    }

    /// The store holding index `name` (the name percent-encoded where a store name cannot hold it).
    package static func storeName(_ name: String) -> String {
        name.storeName(prefix: "value:")
    }

    /// Creates (and builds) the index, or finds it when it exists with the same definition.
    ///
    /// - Throws: ``QueryError`` for a bad definition or a name taken by another definition.
    @discardableResult
    package static func create(name: String, definition: String, in core: DatabaseCore) throws -> ValueIndex {
        let made = try ValueIndex(name: name, definition: definition)
        let index = core.indexer(named: made.storeName) { made } as? ValueIndex ?? made
        guard index.definition == definition else {
            throw QueryError("an index named \"\(name)\" already exists with another definition; delete it first")
        }
        try core.inTransaction { txn in
            // Made linked to the documents where the engine can (SQLite joins by rowid then).
            let store = try core.dataFile.indexStore(index.storeName, over: core.documents.name)
            if let existing = try store.get(definitionKey) {
                guard existing == Array(definition.utf8) else {
                    throw QueryError("an index named \"\(name)\" already exists with another definition; delete it first")
                }
                // A definition without a recorded state (never built, or built before states
                // were recorded) is built now.
                if try Self.recordedState(in: store) != nil { return }
            }
            try store.put(definitionKey, Array(definition.utf8), in: txn)
            try index.rebuild(in: core, txn: txn)
        }
        return index
    }

    /// Registers the value indexes stored in `core`'s file so they stay up to date: adopts
    /// LiteCore's value indexes first (``LiteCoreIndexAdoption``) and catches each index up with
    /// writes made without it (``catchUp(in:)``). A read-only file changes nothing: only
    /// indexes that are up to date are registered (the planner scans for the others).
    @discardableResult
    package static func openAll(in core: DatabaseCore) throws -> [ValueIndex] {
        let readOnly = core.dataFile.isReadOnly
        if !readOnly { try LiteCoreIndexAdoption.adopt(in: core) }
        var indexes: [ValueIndex] = []
        for storeName in try core.dataFile.byteKeyStoreNames() where storeName.hasPrefix("value:") {
            guard let bytes = try core.dataFile.byteKeyStore(storeName).get(definitionKey) else { continue }
            let encoded = String(storeName.dropFirst(6))
            let name = encoded.removingPercentEscapes() ?? encoded
            let definition = String(decoding: bytes, as: UTF8.self)
            let made = try ValueIndex(name: name, definition: definition)
            if readOnly, core.indexer(named: made.storeName) == nil, try !made.isCurrent(in: core) { continue }
            if let index = core.indexer(named: made.storeName, orMake: { made }) as? ValueIndex {
                if !readOnly { try index.catchUp(in: core) }
                indexes.append(index)
            }
        }
        return indexes
    }

    /// Removes index `name` and its entries, and LiteCore's value index of that name (see
    /// ``LiteCoreIndexAdoption/dropOriginal(_:in:)``).
    package static func delete(_ name: String, in core: DatabaseCore) throws {
        let storeName = storeName(name)
        core.removeIndexer(named: storeName)
        if try core.dataFile.byteKeyStoreNames().contains(storeName) { try core.dataFile.deleteByteKeyStore(storeName) }
        try LiteCoreIndexAdoption.dropOriginal(name, in: core)
    }

    // MARK: Maintenance

    /// The entry key of a document, or nil when its first expression is MISSING.
    func entryKey(_ documentID: String, body: [UInt8], core: DatabaseCore) throws -> [UInt8]? {
        var writer = ValueIndexKeyWriter(expressions: expressions, sharedKeys: core.sharedKeys)
        return try entryKey(documentID, body: body, writer: &writer)
    }

    /// The entry key of a document through `writer` (one writer for a change's two bodies).
    private func entryKey(_ documentID: String, body: [UInt8], writer: inout ValueIndexKeyWriter) throws -> [UInt8]? {
        var key: [UInt8] = []
        var id = documentID
        let written = try id.withUTF8 { id in
            try body.withUnsafeBytes { try writer.append(body: $0, id: UnsafeRawBufferPointer(id), tag: Self.entryTag, to: &key) }
        }
        return written ? key : nil
    }

    package func documentChanged(_ change: DocumentBodyChange, in core: DatabaseCore, txn: borrowing WriteTransaction) throws {
        var writer = ValueIndexKeyWriter(expressions: expressions, sharedKeys: core.sharedKeys)
        let old = try change.oldBody.flatMap { try entryKey(change.documentID, body: $0, writer: &writer) }
        let new = try change.newBody.flatMap { try entryKey(change.documentID, body: $0, writer: &writer) }
        // An update that leaves the indexed values as they were leaves the entry as it is.
        guard old != new else { return }
        let store = try core.dataFile.byteKeyStore(storeName)
        if let old { try store.delete(old, in: txn) }
        if let new { try store.put(new, Array(change.documentID.utf8), in: txn) }
    }

    package func rebuild(in core: DatabaseCore, txn: borrowing WriteTransaction) throws {
        let store = try core.dataFile.byteKeyStore(storeName)
        try store.delete(range: ByteKeyRange(lower: [Self.entryTag], upper: nil), in: txn)
        // Each live document's current body is read in place, and its entry's key and value
        // written straight into one buffer of all the entries (no arrays or values per document).
        var writer = ValueIndexKeyWriter(expressions: expressions, sharedKeys: core.sharedKeys)
        var entries = PackedByteKeyEntries(positionsOf: core.documents.name)
        try core.documents.visitRecords(options: RecordEnumerationOptions()) { view in
            let keyStart = entries.bytes.count
            guard !view.flags.contains(.deleted), let body = try StoredDocument.currentBody(inRecordBody: view.body),
                  try writer.append(body: body, id: view.key, tag: Self.entryTag, to: &entries.bytes) else {
                return true
            }
            // The value is the document's ID, which also ends the key.
            let valueStart = entries.bytes.count
            entries.bytes.append(contentsOf: view.key)
            entries.add(keyStart: keyStart, valueStart: valueStart, position: view.position)
            return true
        }
        // In key order, so that the index's table grows at its end instead of at random places.
        entries.sortByKey()
        try store.put(packed: entries, in: txn)
        try Self.record(try core.documentStoreState(), in: store, txn: txn)
    }

    // MARK: Scans

    /// The IDs of the documents whose first expression lies in `ranges`, each range in index
    /// order (a document appears once per range it is in).
    func documentIDs(in ranges: [IndexRange], in core: DatabaseCore) throws -> [String] {
        var ids: [String] = []
        for range in ranges {
            try visitDocumentIDs(in: range, descending: false, in: core) { ids.append($0); return true }
        }
        return ids
    }

    /// Calls `body` with the ID of each entry in `range`, in index order (by the indexed values,
    /// then document ID; reversed when `descending`), until it returns false.
    func visitDocumentIDs(in range: IndexRange, descending: Bool, in core: DatabaseCore,
                          _ body: (String) throws -> Bool) throws {
        try visitEntries(in: range, descending: descending, in: core) { _, id in try body(id) }
    }

    /// Calls `body` with each entry of `range` (its key, then its document's ID), in index
    /// order (reversed when `descending`), until it returns false.
    func visitEntries(in range: IndexRange, descending: Bool, in core: DatabaseCore,
                      _ body: (UnsafeRawBufferPointer, String) throws -> Bool) throws {
        try visitEntries(inKeys: Self.entryKeys(range), descending: descending, in: core, body)
    }

    /// ``visitEntries(in:descending:in:_:)`` for the entries whose keys are in `keys`
    /// (``entryKeys(_:)`` of a range, worked out once for many runs).
    func visitEntries(inKeys keys: ByteKeyRange, descending: Bool, in core: DatabaseCore,
                      _ body: (UnsafeRawBufferPointer, String) throws -> Bool) throws {
        try core.dataFile.byteKeyStore(storeName).visit(keys, descending: descending) { key, value in
            try body(key, String(decoding: value, as: UTF8.self))
        }
    }

    /// Lends `body` the record of each entry's document whose entry key is in `keys`, in index
    /// order (reversed when `descending`), until it returns false: the engine joins the index
    /// to the documents (``KeyStore/visitRecords(keyedBy:in:descending:_:)``).
    func visitRecords(inKeys keys: ByteKeyRange, descending: Bool, in core: DatabaseCore,
                      _ body: (RecordView) throws -> Bool) throws {
        try core.documents.visitRecords(keyedBy: try core.dataFile.byteKeyStore(storeName), in: keys,
                                        descending: descending, body)
    }

    /// ``visitRecords(inKeys:descending:in:_:)`` in whatever order the engine reads fastest (the
    /// caller orders the rows itself).
    func visitRecordsInAnyOrder(inKeys keys: ByteKeyRange, in core: DatabaseCore, _ body: (RecordView) throws -> Bool) throws {
        try core.documents.visitRecordsInAnyOrder(keyedBy: try core.dataFile.byteKeyStore(storeName), in: keys, body)
    }

    /// The keys of the entries in `range`.
    static func entryKeys(_ range: IndexRange) -> ByteKeyRange {
        let low: [UInt8], high: [UInt8]?
        switch range {
        case .between(let lower, let upper):
            low = [entryTag] + (lower.map { IndexKey.encode([$0]) } ?? [])
            high = upper.map { ByteKeyRange.successor(ofPrefix: [entryTag] + IndexKey.encode([$0])) } ?? [entryTag + 1]
        case .stringPrefix(let prefix):
            low = [entryTag] + IndexKey.stringPrefix(prefix)
            high = ByteKeyRange.successor(ofPrefix: low)
        case .values(let values):
            // Each value's encoding ends itself, so theirs is a prefix of exactly those entries.
            low = [entryTag] + IndexKey.encode(values)
            high = ByteKeyRange.successor(ofPrefix: low)
        }
        return ByteKeyRange(lower: low, upper: high)
    }

    /// The IDs of the documents whose first expression lies between `lower` and `upper`
    /// (inclusive, either open), in index order.
    func documentIDs(from lower: QueryValue?, to upper: QueryValue?, in core: DatabaseCore) throws -> [String] {
        try documentIDs(in: [.between(lower, upper)], in: core)
    }
}
