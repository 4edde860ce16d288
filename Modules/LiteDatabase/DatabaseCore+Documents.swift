import Fleece
import LiteStorage

/// What a save does when the document changed since the caller read it.
package enum ConcurrencyPolicy: Sendable {
    /// Save on top of the current revision anyway.
    case lastWriteWins
    /// Do not save; report the conflict.
    case failOnConflict
}

extension DatabaseCore {
    /// The longest document ID accepted, in UTF-8 bytes (LiteCore's limit).
    package static let maximumDocumentIDLength = 240

    /// Checks a document ID: 1 to 240 bytes of UTF-8 without control characters.
    package static func validate(documentID id: String) throws {
        let bytes = id.utf8
        guard !bytes.isEmpty, bytes.count <= maximumDocumentIDLength else {
            throw DatabaseError(.badDocID, "document ID \"\(id.prefix(40))\" must be 1 to \(maximumDocumentIDLength) bytes long")
        }
        guard !bytes.contains(where: { $0 < 0x20 || $0 == 0x7F }) else {
            throw DatabaseError(.badDocID, "document ID \"\(id.prefix(40))\" contains a control character")
        }
    }

    /// The stored document with this ID, deleted or not; nil when there is none.
    package func document(id: String) throws -> StoredDocument? {
        try checkOpen()
        guard let record = try DatabaseError.mapping("reading document \"\(id)\"", { try documents.get(id) }) else {
            return nil
        }
        return try StoredDocument(record: record)
    }

    /// The current revision of a document and its body (validated; nil for a deletion), read
    /// from the record's lent bytes without decoding the revision tree; nil when there is no
    /// such document. What a public read needs; a save decodes the whole tree itself.
    ///
    /// - Throws: `DatabaseError(.corruptRevisionData)` when the current revision or its body is
    ///   malformed.
    package func currentRevision(id: String) throws -> (revision: CurrentRevision, body: FleeceDocument?)? {
        try checkOpen()
        var found: (revision: CurrentRevision, body: FleeceDocument?)?
        _ = try DatabaseError.mapping("reading document \"\(id)\"") {
            try documents.visitRecord(id) { record in
                let first: (id: RevisionID, flags: RevisionFlags, body: UnsafeRawBufferPointer?)?
                do {
                    first = try RevisionTreeCodec.currentRevision(in: record.body)
                } catch {
                    throw DatabaseError(error, context: "document \"\(id)\"")
                }
                guard let current = first else { return }
                let revision = CurrentRevision(documentID: id, sequence: record.sequence, flags: record.flags,
                                               revisionID: current.id)
                guard !revision.isDeleted, let bytes = current.body else {
                    found = (revision, nil)
                    return
                }
                do {
                    let body = bytes.isEmpty
                        ? try FleeceDocument(bytes: StoredDocument.emptyDictionary, sharedKeys: sharedKeys, trusted: true)
                        : try FleeceDocument(copying: bytes, sharedKeys: sharedKeys)
                    found = (revision, body)
                } catch {
                    throw DatabaseError(.corruptRevisionData, "document \"\(id)\": the body of revision "
                                        + "\(current.id.string) is not valid Fleece", underlying: error)
                }
            }
        }
        return found
    }

    /// The number of documents that are not deleted.
    package func documentCount() throws -> Int {
        try checkOpen()
        return try DatabaseError.mapping("counting documents") { try documents.recordCount(includeDeleted: false) }
    }

    /// The last sequence given to a document change.
    package func lastSequence() throws -> UInt64 {
        try DatabaseError.mapping("reading the last sequence") { try documents.lastSequence() }
    }

    /// Saves a new revision of a document, whose body `encodeBody` writes (one Fleece value,
    /// normally a dictionary) with the database's shared keys, inside the save's transaction.
    ///
    /// - Parameters:
    ///   - base: the revision the caller's edit started from (nil for a new document). When the
    ///     document's current revision is another one, `policy` decides.
    ///   - deleted: save a deletion (tombstone) instead; its body is an empty dictionary.
    /// - Returns: the saved document, or nil when `policy` is `.failOnConflict` and the document
    ///   changed since `base`.
    @discardableResult
    package func saveRevision(
        id: String, base: RevisionID?, deleted: Bool = false, policy: ConcurrencyPolicy,
        encodeBody: (FleeceEncoder) throws -> Void
    ) throws -> StoredDocument? {
        try saveRevision(id: id, base: base, deleted: deleted, policy: policy) {
            try encoders.withEncoder { encoder in
                try encodeBody(encoder)
                do {
                    return try encoder.finish()
                } catch {
                    throw DatabaseError(.invalidParameter, "document \"\(id)\" cannot be encoded", underlying: error)
                }
            }
        }
    }

    /// Saves a new revision whose body was already encoded with this database's shared keys,
    /// inside the transaction that is open now (the importer encodes on another thread while
    /// this thread stores: the keys the body uses must be in the table this transaction
    /// persists). Otherwise as ``saveRevision(id:base:deleted:policy:encodeBody:)``.
    @discardableResult
    package func saveRevision(
        id: String, base: RevisionID?, policy: ConcurrencyPolicy, encodedBody: EncodedRevisionBody
    ) throws -> StoredDocument? {
        try saveRevision(id: id, base: base, deleted: false, policy: policy, encoded: encodedBody) { encodedBody.bytes }
    }

    private func saveRevision(
        id: String, base: RevisionID?, deleted: Bool, policy: ConcurrencyPolicy, encoded: EncodedRevisionBody? = nil,
        makeBody: () throws -> [UInt8]
    ) throws -> StoredDocument? {
        try Self.validate(documentID: id)
        return try inTransaction { txn in
            var document = try self.document(id: id) ?? StoredDocument(id: id)
            let current = document.revisionID
            var parent = base
            if current != base {
                let recreatingDeleted = base == nil && document.isDeleted
                if !recreatingDeleted && policy == .failOnConflict { return nil }
                parent = current
            }
            let body = deleted ? StoredDocument.emptyDictionary : try makeBody()
            let hasBlobs = try encoded?.hasBlobs ?? (!deleted && BlobReferences.mayContainBlobs(body: body, sharedKeys: sharedKeys)
                && BlobReferences.containsBlobs(
                    body: body, root: FleeceDocument(bytes: body, sharedKeys: sharedKeys, trusted: true).root))
            let revisionID: RevisionID
            if parent == nil, let encoded {
                revisionID = encoded.firstRevisionID
            } else {
                revisionID = RevisionID.next(after: parent, deleted: deleted, body: body)
            }
            try document.tree.insert(revisionID, body: body, deleted: deleted, hasAttachments: hasBlobs,
                                     parent: parent, allowConflict: false)
            try store(&document, in: txn)
            return document
        }
    }

    /// How ``insertRevision(id:history:body:deleted:markConflict:remoteID:lookup:)`` finds the
    /// document it adds to.
    package enum DocumentLookup {
        /// It reads the document.
        case read
        /// The caller read it (nil: there is none) inside the transaction that is open now, so
        /// nothing can have changed it since.
        case readInThisTransaction(StoredDocument?)
    }

    /// Adds an existing revision with its history (newest first), as the replicator and the
    /// upgrader do: ancestors the document lacks are added without bodies.
    ///
    /// - Parameters:
    ///   - body: Fleece encoded with this database's shared keys (the callers encode it from
    ///     JSON themselves, so it is not validated again).
    ///   - remoteID: the remote peer the revision came from, to record it as the latest
    ///     revision that peer has (replication), in the same write.
    /// - Returns: the saved document, and how many history entries were new.
    @discardableResult
    package func insertRevision(
        id: String, history: [RevisionID], body: [UInt8], deleted: Bool, markConflict: Bool = true,
        remoteID: UInt16? = nil, lookup: DocumentLookup = .read
    ) throws -> (document: StoredDocument, added: Int) {
        try Self.validate(documentID: id)
        return try inTransaction { txn in
            var document: StoredDocument
            switch lookup {
            case .read: document = try self.document(id: id) ?? StoredDocument(id: id)
            case let .readInThisTransaction(read): document = read ?? StoredDocument(id: id)
            }
            let bytes = body.isEmpty ? StoredDocument.emptyDictionary : body
            let fleece = try FleeceDocument(bytes: bytes, sharedKeys: sharedKeys, trusted: true)
            // Screened by bytes first, as a save is: most bodies hold no `@type` and skip the walk.
            let hasBlobs = BlobReferences.containsBlobs(body: bytes, root: fleece.root)
            let added = try document.tree.insertHistory(history, body: body, deleted: deleted,
                                                        hasAttachments: hasBlobs, markConflict: markConflict)
            var remoteChanged = false
            if let remoteID, let newest = history.first, document.tree.remoteRevision(remoteID)?.id != newest {
                document.tree.setRemoteRevision(remoteID, to: newest)
                remoteChanged = true
            }
            if added > 0 || remoteChanged { try store(&document, in: txn) }
            return (document, added)
        }
    }

    /// Removes a document and its whole history for good. Returns whether it existed.
    @discardableResult
    package func purgeDocument(id: String) throws -> Bool {
        try inTransaction { txn in
            let oldBody = indexers.isEmpty ? nil : try document(id: id)?.storedCurrentBody
            let removed = try DatabaseError.mapping("purging document \"\(id)\"") { try documents.purge(id, in: txn) }
            if removed {
                if oldBody != nil { try notifyIndexers(documentID: id, sequence: 0, oldBody: oldBody, newBody: nil, txn: txn) }
                noteChanged(id)
            }
            return removed
        }
    }

    /// Writes a changed document back: prunes its tree, drops old bodies, recomputes its flags.
    /// `document` must have been read (or found missing) in the transaction that is open now,
    /// which holds the file's write lock: so nobody else changed it meanwhile.
    func store(_ document: inout StoredDocument, in txn: borrowing WriteTransaction) throws {
        document.tree.prune(maxDepth: try maxRevTreeDepth())
        document.tree.removeNonLeafBodies()
        guard let current = document.tree.current else {
            throw DatabaseError(.assertionFailed, "document \"\(document.id)\" has no revision to save")
        }
        // Recomputed below from the tree. (A raw-value mask: an array literal of flags goes
        // through the generic `SetAlgebra` initializer on every save.)
        var flags = DocumentFlags(rawValue: document.flags.rawValue
                                  & ~(DocumentFlags.deleted.rawValue | DocumentFlags.conflicted.rawValue
                                      | DocumentFlags.hasAttachments.rawValue))
        // A new current revision has not been pushed anywhere yet.
        if current.id != document.storedRevisionID { flags.remove(.synced) }
        if current.isDeleted { flags.insert(.deleted) }
        if document.tree.hasConflict { flags.insert(.conflicted) }
        if document.tree.revisions.contains(where: { $0.flags.contains(.hasAttachments) }) {
            flags.insert(.hasAttachments)
        }
        let record = Record(key: document.id, version: current.id.binary, body: try document.tree.encoded(),
                            flags: flags)
        // Every caller read the document in the transaction that is open now, so nothing
        // wrote it since: the store need not read it again (RocksDB would, at the cost of a get).
        let read = document.sequence == 0 ? nil
            : RecordState(sequence: document.sequence, expiration: document.expiration)
        let sequence = try DatabaseError.mapping("saving document \"\(document.id)\"") {
            try documents.set(record, replacing: read, in: txn)
        }
        document.sequence = sequence
        document.flags = flags
        document.tree.markSaved(sequence: sequence)
        let newBody = current.isDeleted ? nil : (current.body ?? [])
        if !indexers.isEmpty, newBody != document.storedCurrentBody {
            try notifyIndexers(documentID: document.id, sequence: sequence,
                               oldBody: document.storedCurrentBody, newBody: newBody, txn: txn)
        }
        document.storedCurrentBody = newBody
        document.storedRevisionID = current.id
        noteChanged(document.id)
    }
}
