import Fleece
import FoundationEssentials
import LiteDatabase
import LiteStorage
import LiteSupport

/// Adopting the value indexes real Couchbase Lite (LiteCore) made in a file: each one over the
/// documents whose definition our query syntax compiles becomes a ``ValueIndex`` of the same
/// name and definition, built from the documents, listed and used by the planner like ours.
///
/// LiteCore's own index stays in the file untouched (SQLite keeps maintaining it through the
/// `fl_value` the engine registers), so real Couchbase Lite still finds it correct. Our copy is
/// marked adopted (``adoptedKey``), which decides two things:
/// - when LiteCore's index disappears (real Couchbase Lite deleted it), ours goes too on the
///   next open;
/// - when LiteCore's definition differs from ours (real Couchbase Lite recreated it), LiteCore's
///   wins: it is the later intent, since ours is created with the original's definition and
///   our API refuses another definition under a taken name.
///
/// Deleting an adopted index through our API deletes LiteCore's original as well
/// (``dropOriginal(_:in:)``): left behind, it would be kept up to date by SQLite but no longer
/// by anything the user asked for, and the next open here would adopt it again.
package enum LiteCoreIndexAdoption {
    /// Marks an index store as adopted from LiteCore (value: the original's SQL, when known).
    static let adoptedKey: [UInt8] = [0x00, 0x61]

    /// Adopts LiteCore's value indexes of `core`'s file and forgets adopted ones whose original
    /// is gone, in one transaction. Indexes on other key stores than the documents', of other
    /// kinds, or whose expression is unknown or does not compile stay foreign only.
    ///
    /// - Returns: the names of the indexes adopted (newly or again).
    @discardableResult
    package static func adopt(in core: DatabaseCore) throws -> [String] {
        // A SQLite file converted from RocksDB gets LiteCore's indexes back from their carried
        // definitions, so real Couchbase Lite finds them again.
        if let holder = core.dataFile as? any ForeignIndexHolding, try !core.dataFile.carriedForeignIndexes().isEmpty {
            try holder.restoreCarriedForeignIndexes()
        }
        let foreign = try core.dataFile.foreignIndexes()
        let adoptable = foreign.filter { $0.kind == .value && $0.keyStore == DatabaseCore.StoreNames.documents }
        let stores = try core.dataFile.byteKeyStoreNames()
        let adoptedBefore = try stores.filter { try $0.hasPrefix("value:") && isAdopted(storeName: $0, in: core) }
        guard !adoptable.isEmpty || !adoptedBefore.isEmpty else { return [] }
        // Usually everything was adopted by an earlier open: no write transaction then.
        let originals = Set(foreign.map(\.name))
        if !core.dataFile.isInTransaction,
           try adoptable.allSatisfy({ try isAdoptedAlready($0, in: core) }),
           adoptedBefore.allSatisfy({ originals.contains(indexName(ofStore: $0)) }) {
            return adoptable.filter { $0.expression != nil }.map(\.name)
        }
        return try core.inTransaction { txn in
            var adopted: [String] = []
            for original in adoptable {
                guard let expression = original.expression else { continue }
                let storeName = ValueIndex.storeName(original.name)
                if stores.contains(storeName) {
                    let store = try core.dataFile.byteKeyStore(storeName)
                    let ours = try store.get(ValueIndex.definitionKey).map { String(decoding: $0, as: UTF8.self) }
                    if let ours, sameDefinition(ours, expression) {
                        if try store.get(adoptedKey) == nil { try store.put(adoptedKey, Array((original.sql ?? "").utf8), in: txn) }
                        adopted.append(original.name)
                        continue
                    }
                    forget(storeName, in: core)
                    try core.dataFile.deleteByteKeyStore(storeName)
                }
                do {
                    let index = try ValueIndex.create(name: original.name, definition: expression, in: core)
                    try core.dataFile.byteKeyStore(index.storeName).put(adoptedKey, Array((original.sql ?? "").utf8), in: txn)
                    adopted.append(original.name)
                } catch where error is QueryError {
                    // Not one our query syntax understands: it stays LiteCore's alone (still listed).
                    DatabaseLog.warning("Couchbase Lite's index \"\(original.name)\" in \(core.bundle.path) is not adopted: \(error)")
                    forget(storeName, in: core)
                }
            }
            // Adopted indexes whose original real Couchbase Lite deleted.
            for storeName in adoptedBefore {
                guard !originals.contains(indexName(ofStore: storeName)) else { continue }
                forget(storeName, in: core)
                try core.dataFile.deleteByteKeyStore(storeName)
            }
            return adopted
        }
    }

    /// Deletes LiteCore's value index `name` (its SQL index and `indexes` row, or its carried
    /// definition), if the file has one; full-text indexes are left to the full-text module.
    package static func dropOriginal(_ name: String, in core: DatabaseCore) throws {
        let original = try core.dataFile.foreignIndexes().first { $0.name == name }
        guard let original, original.kind == .value || original.kind == .array else { return }
        try core.dataFile.dropForeignIndex(named: name)
    }

    private static func isAdopted(storeName: String, in core: DatabaseCore) throws -> Bool {
        guard try core.dataFile.byteKeyStoreNames().contains(storeName) else { return false }
        return try core.dataFile.byteKeyStore(storeName).get(adoptedKey) != nil
    }

    /// Whether `original` has an adopted copy with its definition (or cannot be adopted at all).
    private static func isAdoptedAlready(_ original: ForeignIndex, in core: DatabaseCore) throws -> Bool {
        guard let expression = original.expression else { return true }
        let storeName = ValueIndex.storeName(original.name)
        guard try core.dataFile.byteKeyStoreNames().contains(storeName) else { return false }
        let store = try core.dataFile.byteKeyStore(storeName)
        guard try store.get(adoptedKey) != nil, let ours = try store.get(ValueIndex.definitionKey) else { return false }
        return sameDefinition(String(decoding: ours, as: UTF8.self), expression)
    }

    /// The index name a `value:` store holds (percent-decoded).
    private static func indexName(ofStore storeName: String) -> String {
        let encoded = String(storeName.dropFirst("value:".count))
        return encoded.removingPercentEscapes() ?? encoded
    }

    /// Unregisters the indexer of an index store (its data is deleted by the caller).
    private static func forget(_ storeName: String, in core: DatabaseCore) {
        core.removeIndexer(named: storeName)
    }

    /// Whether two JSON definitions are the same expressions (ignoring spacing and key order).
    static func sameDefinition(_ first: String, _ second: String) -> Bool {
        first == second || (canonical(first) != nil && canonical(first) == canonical(second))
    }

    private static func canonical(_ json: String) -> String? {
        // Fleece keeps a dictionary's keys sorted, so its canonical JSON ignores their order.
        guard let document = try? FleeceDocument(json: json) else { return nil }  // allowed: not JSON means not equal
        return try? JSONConverter.json(fromFleece: document.bytes, canonical: true)  // allowed: as above
    }
}
