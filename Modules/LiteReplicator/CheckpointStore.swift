import Crypto
import Fleece
import Foundation
import LiteDatabase
import LiteStorage

/// Reads and writes replication checkpoints in a database, where Couchbase Lite 2.x keeps them:
/// the active side's own copy in the `checkpoints` key store, copies kept on behalf of peers
/// in `peerCheckpoints` (with a revision `"<n>-cc"` so two clients cannot overwrite each other).
package struct CheckpointStore: Sendable {
    let core: DatabaseCore

    package init(core: DatabaseCore) {
        self.core = core
    }

    /// The checkpoint ID of a replication, computed as LiteCore 2.8 does so that a replication
    /// a real client started resumes here and the other way round: `"cp-"` + base64 of the
    /// SHA-1 of a Fleece array [private UUID as a 16-byte string, remote URL, then — only when
    /// any is set — channels, filter, filter parameters, document IDs, each or null].
    package static func checkpointID(privateUUID: [UInt8], remoteURL: String, channels: [String]?,
                                     filter: String? = nil, documentIDs: [String]?) throws -> String {
        let encoder = FleeceEncoder()
        encoder.beginArray()
        encoder.writeString(rawBytes: privateUUID)
        encoder.writeString(remoteURL)
        let channels = channels?.isEmpty == false ? channels : nil
        let documentIDs = documentIDs?.isEmpty == false ? documentIDs : nil
        if channels != nil || documentIDs != nil || filter != nil {
            writeStrings(channels, to: encoder)
            if let filter { encoder.writeString(filter) } else { encoder.writeNull() }
            encoder.writeNull()
            writeStrings(documentIDs, to: encoder)
        }
        encoder.endArray()
        let bytes = try encoder.finish()
        return "cp-" + Data(Insecure.SHA1.hash(data: bytes)).base64EncodedString()
    }

    private static func writeStrings(_ strings: [String]?, to encoder: FleeceEncoder) {
        guard let strings else { encoder.writeNull(); return }
        encoder.beginArray()
        for string in strings { encoder.writeString(string) }
        encoder.endArray()
    }

    /// The checkpoint ID of a replication of this database.
    package func checkpointID(options: ReplicationOptions) throws -> String {
        try Self.checkpointID(privateUUID: core.privateUUID(), remoteURL: options.remoteURL,
                              channels: options.channels, documentIDs: options.documentIDs)
    }

    // MARK: The active side's copy

    /// The local copy of a checkpoint (nil: none).
    package func localCheckpoint(id: String) throws -> ReplicationCheckpoint? {
        try DatabaseError.mapping("reading checkpoint \(id)") {
            guard let record = try core.dataFile.keyStore(DatabaseCore.StoreNames.checkpoints).get(id) else { return nil }
            return ReplicationCheckpoint(json: record.body)
        }
    }

    /// Saves the local copy of a checkpoint.
    package func saveLocalCheckpoint(_ checkpoint: ReplicationCheckpoint, id: String) throws {
        try core.inTransaction { txn in
            try DatabaseError.mapping("saving checkpoint \(id)") {
                _ = try core.dataFile.keyStore(DatabaseCore.StoreNames.checkpoints)
                    .set(Record(key: id, body: checkpoint.json()), ifSequence: nil, in: txn)
            }
        }
    }

    /// Forgets the local copy (a reset replication starts over).
    package func deleteLocalCheckpoint(id: String) throws {
        try core.inTransaction { txn in
            try DatabaseError.mapping("deleting checkpoint \(id)") {
                _ = try core.dataFile.keyStore(DatabaseCore.StoreNames.checkpoints).purge(id, in: txn)
            }
        }
    }

    // MARK: Copies kept for peers

    /// A peer's checkpoint: its JSON body and revision, or nil.
    package func peerCheckpoint(id: String) throws -> (body: [UInt8], revision: String)? {
        try DatabaseError.mapping("reading peer checkpoint \(id)") {
            guard let record = try core.dataFile.keyStore(DatabaseCore.StoreNames.peerCheckpoints).get(id) else {
                return nil
            }
            return (record.body, String(decoding: record.version, as: UTF8.self))
        }
    }

    /// Saves a peer's checkpoint if `revision` is the one stored ("" for none), and returns
    /// the new revision; nil when the revisions differ (a conflict).
    package func savePeerCheckpoint(id: String, body: [UInt8], revision: String) throws -> String? {
        try core.inTransaction { txn in
            try DatabaseError.mapping("saving peer checkpoint \(id)") {
                let store = try core.dataFile.keyStore(DatabaseCore.StoreNames.peerCheckpoints)
                let existing = try store.get(id, content: .metaOnly)
                let current = existing.map { String(decoding: $0.version, as: UTF8.self) } ?? ""
                guard current == revision else { return nil }
                let generation = current.split(separator: "-").first.flatMap { UInt64($0) } ?? 0
                let next = "\(generation + 1)-cc"
                _ = try store.set(Record(key: id, version: Array(next.utf8), body: body), ifSequence: nil, in: txn)
                return next
            }
        }
    }
}
