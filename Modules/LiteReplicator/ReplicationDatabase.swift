import BlobStore
import Crypto
import Fleece
import Foundation
import LiteDatabase
import LiteStorage

/// A local change the pusher offers the peer.
package struct OutgoingChange: Sendable {
    package let documentID: String
    package let revisionID: RevisionID
    package let sequence: UInt64
    package let deleted: Bool
    /// The stored record's size (what LiteCore sends as `bodySize`).
    package let bodySize: Int
    /// The latest revision the peer is known to have (conflict-free push's base).
    package let remoteAncestor: RevisionID?
    /// The document as the listing read it, whose current revision is `revisionID`: the `rev`
    /// message is built from it instead of reading the document again (nil: read it then).
    package let listedDocument: StoredDocument?

    package init(documentID: String, revisionID: RevisionID, sequence: UInt64, deleted: Bool, bodySize: Int,
                 remoteAncestor: RevisionID?, listedDocument: StoredDocument? = nil) {
        self.documentID = documentID
        self.revisionID = revisionID
        self.sequence = sequence
        self.deleted = deleted
        self.bodySize = bodySize
        self.remoteAncestor = remoteAncestor
        self.listedDocument = listedDocument
    }
}

/// A revision ready to be sent in a `rev` message.
package struct OutgoingRevision: Sendable {
    package let documentID: String
    package let revisionID: RevisionID
    package let deleted: Bool
    /// The body as JSON, keys in the stored order.
    package let json: [UInt8]
    /// Ancestors, newest first, excluding the revision itself.
    package let ancestors: [RevisionID]
    /// The blobs the body refers to (the peer may ask for them).
    package let blobKeys: [BlobKey]
}

/// A revision received in a `rev` message, checked and converted.
package struct IncomingRevision: Sendable {
    package let documentID: String
    /// The revision, then its ancestors, newest first.
    package let history: [RevisionID]
    package let deleted: Bool
    package let json: [UInt8]
    /// The peer withdrew access (`_removed`): purge instead of saving.
    package let removed: Bool
}

/// What the replicator needs from a database, in protocol terms; everything here is one
/// transaction or one read snapshot.
package struct ReplicationDatabase: Sendable {
    package let core: DatabaseCore

    package init(core: DatabaseCore) {
        self.core = core
    }

    // MARK: Pushing

    /// Local changes after `since`, at most `limit`, with what proposeChanges needs; documents
    /// whose current revision came from (or went to) remote `remoteID` are skipped when
    /// `skipKnownTo` is set, so a push–pull pair does not echo what it just pulled.
    package func changes(since: UInt64, limit: Int, remoteID: UInt16?, activeOnly: Bool = false,
                         documentIDs: Set<String>?) throws -> (changes: [OutgoingChange], lastSequence: UInt64, exhausted: Bool) {
        // One pass over the sequence index in one read snapshot, bodies included (the tree
        // holds the remote's revision): reading each listed document again by its ID cost a
        // statement and a read transaction per change, about 3 % of a push.
        try core.checkOpen()
        let records = try DatabaseError.mapping("listing the changes of the database since \(since)") {
            try core.dataFile.withReadSnapshot {
                let enumerator = try core.documents.enumerate(since: since, options: RecordEnumerationOptions(includeDeleted: true))
                var records: [Record] = []
                while records.count < limit, let record = try enumerator.next() { records.append(record) }
                return records
            }
        }
        var result: [OutgoingChange] = []
        for record in records {
            if let documentIDs, !documentIDs.contains(record.key) { continue }
            if activeOnly && record.flags.contains(.deleted) { continue }
            let document = try StoredDocument(record: record)
            guard let current = document.current else { continue }
            let remote = remoteID.flatMap { document.tree.remoteRevision($0)?.id }
            if remote != nil && remote == current.id { continue }
            // The stored record's size is LiteCore's bodySize.
            result.append(OutgoingChange(documentID: document.id, revisionID: current.id, sequence: document.sequence,
                                         deleted: current.isDeleted, bodySize: record.body.count, remoteAncestor: remote,
                                         listedDocument: document))
        }
        return (result, records.last?.sequence ?? since, records.count < limit)
    }

    /// The revision to send for a listed change: the listed one, from the document the listing
    /// read (as LiteCore, which sends the revision it listed), or, when the change carries no
    /// document, the document's current revision read now; nil when the document is gone.
    package func revisionToSend(_ change: OutgoingChange, knownAncestors: Set<RevisionID>,
                                maxHistory: Int) throws -> OutgoingRevision? {
        guard let document = try change.listedDocument ?? core.document(id: change.documentID) else { return nil }
        return try revisionToSend(document, knownAncestors: knownAncestors, maxHistory: maxHistory)
    }

    /// The current revision of a document, to send; nil when it no longer is `revisionID`'s
    /// document (gone, or purged).
    package func revisionToSend(id: String, knownAncestors: Set<RevisionID>, maxHistory: Int) throws -> OutgoingRevision? {
        guard let document = try core.document(id: id) else { return nil }
        return try revisionToSend(document, knownAncestors: knownAncestors, maxHistory: maxHistory)
    }

    private func revisionToSend(_ document: StoredDocument, knownAncestors: Set<RevisionID>,
                                maxHistory: Int) throws -> OutgoingRevision? {
        let id = document.id
        guard let current = document.current, let index = document.tree.index(of: current.id) else { return nil }
        var ancestors: [RevisionID] = []
        for revision in document.tree.history(from: index).dropFirst() {
            ancestors.append(revision.id)
            if knownAncestors.contains(revision.id) || ancestors.count >= maxHistory { break }
        }
        let body = current.isDeleted ? StoredDocument.emptyDictionary : (current.body ?? StoredDocument.emptyDictionary)
        let json = try JSONConverter.json(fromFleece: body.isEmpty ? StoredDocument.emptyDictionary : body,
                                          sharedKeys: core.sharedKeys)
        var keys: [BlobKey] = []
        if current.flags.contains(.hasAttachments), let root = try document.body(sharedKeys: core.sharedKeys)?.root {
            for dict in BlobReferences.blobDictionaries(root) {
                if let digest = dict["digest"]?.string, let key = try? BlobKey(digest) { keys.append(key) }  // allowed: informational list
            }
        }
        return OutgoingRevision(documentID: id, revisionID: current.id, deleted: current.isDeleted,
                                json: Array(json.utf8), ancestors: ancestors, blobKeys: keys)
    }

    /// Records that the peer now has the revisions pushed (each document's `revision`, which
    /// it had at `sequence`). For remote #1, when that is still the current revision, the
    /// `synced` flag says so without a new sequence; otherwise (another remote, or a document
    /// saved again while its push was in flight) the tree records the peer's revision, as
    /// LiteCore's `c4db_markSynced` does, so the next proposal names it as the parent. Before,
    /// such a document was proposed with its older parent and refused with 409 (found by the
    /// soak test), and another remote was recorded as having the document's newer revision.
    /// The recorded revision only moves forward (pushes may complete out of order).
    ///
    /// Runs on the database's writer queue (``DatabaseCore/write(_:)``), so the caller's thread
    /// of Swift's small cooperative pool is free meanwhile for the connection's work.
    package func markPushed(_ documents: [(id: String, sequence: UInt64, revision: RevisionID)],
                            remoteID: UInt16) async throws {
        guard !documents.isEmpty else { return }
        try await core.write { core in
            for entry in documents {
                if remoteID == StoredDocument.defaultRemoteID, try core.markSynced(id: entry.id, sequence: entry.sequence) {
                    continue
                }
                guard let document = try core.document(id: entry.id), document.tree.revision(entry.revision) != nil else {
                    continue  // purged or pruned meanwhile: nothing to record
                }
                if let known = document.tree.remoteRevision(remoteID), known.id.generation >= entry.revision.generation {
                    continue
                }
                try core.setRemoteRevision(id: entry.id, remoteID: remoteID, to: entry.revision)
            }
        }
    }

    /// A parent to propose `revisionID` with again after a 409: the newest of `candidates`
    /// (revisions sent whose reply was lost) that is an ancestor of the document's current
    /// revision, still `revisionID`, and newer than `remoteAncestor`. Nil when there is none or
    /// the document changed (it is then listed again anyway).
    package func retryParent(id: String, revisionID: RevisionID, remoteAncestor: RevisionID?,
                             candidates: [RevisionID]) throws -> RevisionID? {
        guard !candidates.isEmpty, let document = try core.document(id: id), let current = document.current,
              current.id == revisionID, let index = document.tree.index(of: current.id) else { return nil }
        let wanted = Set(candidates)
        for revision in document.tree.history(from: index).dropFirst() {
            if revision.id == remoteAncestor { return nil }
            if let remoteAncestor, revision.id.generation <= remoteAncestor.generation { return nil }
            if wanted.contains(revision.id) { return revision.id }
        }
        return nil
    }

    // MARK: Answering offers

    /// For a `changes` entry: nil when we have the revision (don't send), else the revisions
    /// we have that may be its ancestors (LiteCore sends at most 10), newest first.
    package func knownAncestors(id: String, revisionID: RevisionID) throws -> [RevisionID]? {
        guard let document = try core.document(id: id), document.exists else { return [] }
        if document.tree.revision(revisionID) != nil { return nil }
        var result: [RevisionID] = []
        for revision in document.tree.revisions where revision.id.generation < revisionID.generation {
            if revision.isLeaf || result.isEmpty { result.append(revision.id) }
            if result.count >= 10 { break }
        }
        return result
    }

    /// The status a `proposeChanges` entry gets (LiteCore's rule): 0 send it, 304 we have it,
    /// 409 it would conflict.
    package func proposalStatus(id: String, revisionID: RevisionID, serverRevisionID: RevisionID?) throws -> Int {
        guard let document = try core.document(id: id), let current = document.current else {
            return serverRevisionID == nil ? 0 : 409
        }
        if current.id == revisionID || document.tree.revision(revisionID) != nil { return 304 }
        guard let serverRevisionID else { return current.isDeleted ? 0 : 409 }
        return serverRevisionID == current.id ? 0 : 409
    }

    // MARK: Saving what arrives

    /// The blob digests a received body refers to that this database lacks, with their
    /// declared lengths and content types.
    package func missingBlobs(inJSON json: [UInt8]) throws -> [(key: BlobKey, length: Int64?, contentType: String?)] {
        guard json.count > 8, MessageJSON.contains(json, "\"digest\"") else { return [] }
        let fleece = try json.withUnsafeBytes { try JSONConverter.fleece(fromJSONBytes: $0) }
        let root = try FleeceDocument(bytes: fleece, sharedKeys: nil).root
        var result: [(BlobKey, Int64?, String?)] = []
        var seen = Set<BlobKey>()
        for dict in BlobReferences.blobDictionaries(root) {
            guard let digest = dict["digest"]?.string else { continue }
            let key: BlobKey
            do { key = try BlobKey(digest) } catch {
                throw ReplicationError(.http, 400, "the revision refers to a blob with an invalid digest \"\(digest)\"")
            }
            guard !seen.contains(key), !core.blobStore.contains(key) else { continue }
            seen.insert(key)
            let length = dict["length"].flatMap { $0.isInteger ? $0.int64 : nil }
            result.append((key, length, dict["content_type"]?.string ?? dict["content-type"]?.string))
        }
        return result
    }

    /// Saves a received revision with its history (or purges the document for a removal) in
    /// the caller's transaction; conflicts are kept as a branch when `allowConflict`, refused
    /// otherwise. Logical refusals throw before anything is written.
    package static func insert(_ revision: IncomingRevision, into core: DatabaseCore, remoteID: UInt16?, allowConflict: Bool,
                               filter: (@Sendable (ReplicationDocumentInfo) throws -> Bool)?) throws -> InsertOutcome {
        // Joins the caller's transaction: the document read below is the one the insert adds to.
        try core.inTransaction { _ in
            try insertInTransaction(revision, into: core, remoteID: remoteID, allowConflict: allowConflict, filter: filter)
        }
    }

    private static func insertInTransaction(
        _ revision: IncomingRevision, into core: DatabaseCore, remoteID: UInt16?, allowConflict: Bool,
        filter: (@Sendable (ReplicationDocumentInfo) throws -> Bool)?
    ) throws -> InsertOutcome {
        if revision.removed {
            _ = try core.purgeDocument(id: revision.documentID)
            return .purged
        }
        let body: [UInt8]
        if revision.deleted && (revision.json.isEmpty || revision.json == Array("{}".utf8)) {
            body = StoredDocument.emptyDictionary
        } else {
            body = try encodeBody(revision.json, sharedKeys: core.sharedKeys)
        }
        if let filter, let newest = revision.history.first,
           try !filter(ReplicationDocumentInfo(documentID: revision.documentID, revisionID: newest.string,
                                               deleted: revision.deleted, body: revision.deleted ? nil : body)) {
            return .rejectedByFilter
        }
        let existing = try core.document(id: revision.documentID)
        if !allowConflict, let current = existing?.current, !current.isDeleted, !revision.history.contains(current.id) {
            throw ReplicationError(.http, 409, "revision \(revision.history.first?.string ?? "?") of "
                                   + "\"\(revision.documentID)\" conflicts with the current revision \(current.id)")
        }
        // The local current revision is the one this peer had: nothing changed here since.
        let peersRevision = remoteID.flatMap { existing?.tree.remoteRevision($0)?.id }
        let unchangedHere = peersRevision != nil && peersRevision == existing?.current?.id
        // Only the active side marks conflicting branches, as LiteCore (`markConflict` is "has a
        // remote DB ID"): a passive side keeps what its clients push as they pushed it.
        let (document, _) = try core.insertRevision(id: revision.documentID, history: revision.history, body: body,
                                                    deleted: revision.deleted, markConflict: remoteID != nil,
                                                    remoteID: remoteID, lookup: .readInThisTransaction(existing))
        // A revision saved as a conflicting branch is a conflict even when one side is a
        // deletion (LiteCore's puller reports `kRevIsConflict` likewise), so it is resolved
        // rather than left behind the other branch.
        let branched = revision.history.first.flatMap { document.tree.revision($0) }?.isConflict == true
        if branched, unchangedHere, let newest = revision.history.first, let local = existing?.current?.id,
           document.tree.revision(local)?.isLeaf == true {
            // Not a conflict: the fork only means the peer's history no longer reaches the
            // revision we had from it (more changes there than a history carries). The peer's
            // revision replaces it, deletion or not. Resolving it by the default rule let an
            // old pulled deletion win over the peer's newer revisions and pushed that back,
            // deleting live documents on the server (found by the 600 s soak run).
            try core.resolveConflict(id: revision.documentID, winner: newest, loser: local)
            return .saved
        }
        return branched || document.tree.hasConflict ? .conflicted : .saved
    }

    /// Top-level properties 2.x bodies must not carry (LiteCore strips them from incoming
    /// revisions: 1.x-style metadata).
    static let specialKeys: Set<String> = ["_id", "_rev", "_deleted", "_revisions"]

    /// A received JSON body as Fleece with the database's shared keys, without the special
    /// top-level properties.
    static func encodeBody(_ json: [UInt8], sharedKeys: SharedKeys) throws -> [UInt8] {
        let mayHaveSpecialKeys = specialKeys.contains { MessageJSON.contains(json, "\"\($0)\"") }
        return try json.withUnsafeBytes { buffer in
            guard mayHaveSpecialKeys else { return try JSONConverter.fleece(fromJSONBytes: buffer, sharedKeys: sharedKeys) }
            let encoder = FleeceEncoder(sharedKeys: sharedKeys, reservingCapacity: buffer.count)
            _ = try JSONConverter.write(json: buffer, to: encoder, skipping: specialKeys)
            return try encoder.finish()
        }
    }

    /// What saving a received revision did.
    package enum InsertOutcome: Sendable {
        case saved, conflicted, purged, rejectedByFilter
    }

    // MARK: Blobs

    /// A blob this database has, opened for `getAttachment`: read in pieces as the reply goes
    /// out (its digest is checked when the end is read).
    package func blobReader(digest: String) throws -> BlobReader {
        let key: BlobKey
        do { key = try BlobKey(digest) } catch {
            throw ReplicationError(.http, 400, "\"\(digest)\" is not a blob digest")
        }
        do {
            return try core.blobStore.makeReader(for: key)
        } catch {
            throw ReplicationError(.http, 404, "no blob \(digest) here", underlying: error)
        }
    }

    /// Starts storing a blob received from the peer piece by piece; ``finishBlob(_:key:expectedLength:)``
    /// checks it and names it.
    package func makeBlobWriter() throws -> BlobWriter {
        do {
            return try core.blobStore.makeWriter()
        } catch {
            throw ReplicationError(.database, 10, "cannot store a blob from the peer", underlying: error)
        }
    }

    /// Stores a blob written by a writer from ``makeBlobWriter()`` after checking it hashes to
    /// `key` and has `expectedLength` bytes; on a mismatch nothing is stored.
    package func finishBlob(_ writer: BlobWriter, key: BlobKey, expectedLength: Int64?) throws {
        do {
            _ = try writer.finish(expecting: key, expectedLength: expectedLength)
        } catch {
            writer.abort()
            throw ReplicationError(.http, 400, "blob \(key.string) from the peer does not match its digest or length; "
                                   + "nothing was stored", underlying: error)
        }
    }

    /// `proveAttachment`'s answer: the digest of the nonce's length byte, the nonce and the blob.
    package func proof(digest: String, nonce: [UInt8]) throws -> String {
        guard (1...255).contains(nonce.count) else {
            throw ReplicationError(.http, 400, "proveAttachment needs a nonce of 1 to 255 bytes")
        }
        let reader = try blobReader(digest: digest)
        defer { reader.close() }
        var hasher = Insecure.SHA1()
        hasher.update(data: [UInt8(nonce.count)])
        hasher.update(data: nonce)
        do {
            while let chunk = try reader.readChunk() { hasher.update(data: chunk) }
        } catch {
            throw ReplicationError(.http, 500, "blob \(digest) cannot be read", underlying: error)
        }
        return "sha1-" + Data(hasher.finalize()).base64EncodedString()
    }
}
