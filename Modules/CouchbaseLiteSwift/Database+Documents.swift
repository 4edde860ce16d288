import Fleece
import Foundation
import LiteDatabase

extension Database {
    /// The document with this ID, or nil when it does not exist or is deleted.
    public func document(withID id: String) -> Document? {
        do {
            return try loadDocument(id: id, includeDeleted: false)
        } catch {
            Self.log.log(.error, .database, "Cannot read document \"\(id)\": \(error)")
            return nil
        }
    }

    /// The document with this ID as a fragment: `database["hotel_1"]["name"].string`.
    public subscript(documentID: String) -> DocumentFragment {
        DocumentFragment(document: document(withID: documentID))
    }

    func loadDocument(id: String, includeDeleted: Bool) throws -> Document? {
        try CouchbaseLiteError.wrapping("reading document \"\(id)\"") {
            guard let (revision, body) = try core.currentRevision(id: id), includeDeleted || !revision.isDeleted else {
                return nil
            }
            return Document(id: id, database: self, stored: revision, body: body, mutable: false)
        }
    }

    /// Saves a document; when it changed since it was read, this save wins.
    public func saveDocument(_ document: MutableDocument) throws {
        _ = try saveDocument(document, concurrencyControl: .lastWriteWins)
    }

    /// Saves a document, resolving a conflict with another writer by the given policy.
    ///
    /// - Returns: false when `concurrencyControl` is `.failOnConflict` and the document changed
    ///   since it was read; the document is then left unsaved.
    /// - Throws: `CouchbaseLiteError` when the database is closed, the document belongs to
    ///   another database, a property cannot be stored, or the write fails.
    @discardableResult
    public func saveDocument(_ document: MutableDocument, concurrencyControl: ConcurrencyControl) throws -> Bool {
        try save(document, deleting: false, policy: concurrencyControl.policy)
    }

    /// Saves a document, asking `conflictHandler` what to do when it changed since it was read.
    ///
    /// The handler gets the document being saved and the one now in the database (nil when it
    /// was deleted); it can change the first and return true to save it on top of the second, or
    /// return false to give up (the method then returns false).
    @discardableResult
    public func saveDocument(_ document: MutableDocument,
                             conflictHandler: (MutableDocument, Document?) throws -> Bool) throws -> Bool {
        while true {
            if try save(document, deleting: false, policy: .failOnConflict) { return true }
            let current = try loadDocument(id: document.id, includeDeleted: true)
            guard try conflictHandler(document, current?.isDeleted == true ? nil : current) else { return false }
            document.stored = current?.stored
        }
    }

    /// Deletes a document; when it changed since it was read, the deletion wins.
    public func deleteDocument(_ document: Document) throws {
        _ = try deleteDocument(document, concurrencyControl: .lastWriteWins)
    }

    /// Deletes a document (it becomes a tombstone that replicates), resolving a conflict by the
    /// given policy.
    ///
    /// - Returns: false when `concurrencyControl` is `.failOnConflict` and the document changed.
    /// - Throws: `.notFound` when the document was never saved.
    @discardableResult
    public func deleteDocument(_ document: Document, concurrencyControl: ConcurrencyControl) throws -> Bool {
        guard document.stored != nil else {
            throw CouchbaseLiteError(.notFound, "cannot delete document \"\(document.id)\": it has not been saved")
        }
        return try save(document, deleting: true, policy: concurrencyControl.policy)
    }

    /// Removes a document and all its history for good (nothing replicates).
    ///
    /// - Throws: `.notFound` when there is no such document.
    public func purgeDocument(_ document: Document) throws {
        try purgeDocument(withID: document.id)
    }

    /// Removes the document with this ID and all its history for good.
    ///
    /// - Throws: `.notFound` when there is no such document.
    public func purgeDocument(withID id: String) throws {
        let purged = try CouchbaseLiteError.wrapping("purging \"\(id)\"") { try core.purgeDocument(id: id) }
        guard purged else {
            throw CouchbaseLiteError(.notFound, "cannot purge document \"\(id)\": no such document")
        }
    }

    /// Sets when a document expires (it is then purged); nil cancels the expiration.
    ///
    /// - Throws: `.notFound` when there is no such document.
    public func setDocumentExpiration(withID id: String, expiration: Date?) throws {
        try CouchbaseLiteError.wrapping("setting the expiration of \"\(id)\"") {
            try core.setExpiration(id: id, to: expiration.map { Int64(($0.timeIntervalSince1970 * 1000).rounded()) })
        }
    }

    /// When a document expires, or nil for never (or when there is no such document). A read
    /// failure is logged as an error (this 2.x method cannot throw); ``documentExpiration(withID:)``
    /// throws it instead.
    public func getDocumentExpiration(withID id: String) -> Date? {
        do {
            return try documentExpiration(withID: id)
        } catch {
            Self.log.log(.error, .database, "Cannot read the expiration of document \"\(id)\": \(error)")
            return nil
        }
    }

    /// When a document expires, or nil for never (or when there is no such document).
    ///
    /// - Throws: `CouchbaseLiteError` when the database is closed or cannot be read.
    public func documentExpiration(withID id: String) throws -> Date? {
        try CouchbaseLiteError.wrapping("reading the expiration of \"\(id)\"") {
            try core.expiration(id: id).map { Date(timeIntervalSince1970: Double($0) / 1000) }
        }
    }

    /// Runs `block` as one atomic transaction: every change inside is saved together, or none
    /// when it throws. Listeners hear about the changes after it commits.
    public func inBatch(using block: () throws -> Void) throws {
        // The block's own errors reach the caller unchanged; the database's become CouchbaseLiteErrors.
        try CouchbaseLiteError.convertingModuleErrors { try core.inTransaction { _ in try block() } }
    }

    private func save(_ document: Document, deleting: Bool, policy: ConcurrencyPolicy) throws -> Bool {
        if let owner = document.database, owner !== self, owner.path != path {
            throw CouchbaseLiteError(.invalidParameter,
                                     "document \"\(document.id)\" belongs to database \"\(owner.name)\", not \"\(name)\"")
        }
        if !deleting, let failure = document.readFailure {
            throw CouchbaseLiteError(.corruptRevisionData,
                                     "document \"\(document.id)\" could not be read, so saving it would replace its "
                                     + "stored content with nothing; delete or purge it instead", underlying: failure)
        }
        let blobStore = self.blobStore
        let saved = try CouchbaseLiteError.wrapping("saving document \"\(document.id)\"") {
            try core.saveRevision(id: document.id, base: document.stored?.revisionID, deleted: deleting,
                                  policy: policy) { encoder in
                if let json = document.parsedJSON {
                    json.replay(to: encoder)
                } else {
                    try DocumentEncoder(encoder: encoder, blobStore: blobStore).encode(document.properties)
                }
            }
        }
        guard let saved else { return false }
        document.didSave(saved, in: self)
        return true
    }
}

extension ConcurrencyControl {
    var policy: ConcurrencyPolicy {
        switch self {
        case .lastWriteWins: .lastWriteWins
        case .failOnConflict: .failOnConflict
        }
    }
}
