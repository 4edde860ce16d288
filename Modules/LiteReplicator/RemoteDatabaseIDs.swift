import Fleece
import LiteDatabase
import LiteStorage

/// The small numbers a database gives the remotes it replicates with, as LiteCore 2.8 keeps
/// them: a Fleece dictionary {remote URL: number} in the `info` store's `remotes` record,
/// numbers from 1. A document's revision tree records the latest revision of each remote by
/// number, and remote 1's is also what the synced flag stands for.
package enum RemoteDatabaseIDs {
    static let recordKey = "remotes"

    /// The number of `remote`; a new one is assigned (in a transaction) when `create` is set,
    /// else nil for a remote never replicated with.
    package static func id(for remote: String, in core: DatabaseCore, create: Bool) throws -> UInt16? {
        if let found = try lookUp(remote, in: core) { return found }
        guard create else { return nil }
        return try core.inTransaction { txn in
            if let found = try lookUp(remote, in: core) { return found }
            let existing = try entries(in: core)
            let next = (existing.map(\.id).max() ?? 0) + 1
            guard next <= UInt16.max else {
                throw DatabaseError(.unsupported, "database \"\(core.bundle.name)\" has replicated with too many remotes")
            }
            let encoder = FleeceEncoder()
            encoder.beginDictionary()
            for entry in existing {
                encoder.writeKey(entry.url)
                encoder.writeUInt(UInt64(entry.id))
            }
            encoder.writeKey(remote)
            encoder.writeUInt(UInt64(next))
            encoder.endDictionary()
            let body = try encoder.finish()
            try DatabaseError.mapping("recording remote \(remote)") {
                _ = try core.info.set(Record(key: recordKey, body: body), ifSequence: nil, in: txn)
            }
            return UInt16(next)
        }
    }

    private static func lookUp(_ remote: String, in core: DatabaseCore) throws -> UInt16? {
        try entries(in: core).first { $0.url == remote }.map { UInt16($0.id) }
    }

    private static func entries(in core: DatabaseCore) throws -> [(url: String, id: Int)] {
        let record = try DatabaseError.mapping("reading the remotes of \"\(core.bundle.name)\"") {
            try core.info.get(recordKey)
        }
        guard let record, !record.body.isEmpty else { return [] }
        let document: FleeceDocument
        do {
            document = try FleeceDocument(bytes: record.body, sharedKeys: nil)
        } catch {
            throw DatabaseError(.corruptData, "the remotes record of \"\(core.bundle.name)\" is not valid Fleece",
                                underlying: error)
        }
        guard let dictionary = document.root.dictionary else { return [] }
        return dictionary.compactMap { key, value in
            let id = value.isInteger ? Int(value.int64) : 0
            return (1...Int(UInt16.max)).contains(id) ? (key, id) : nil
        }
    }
}
