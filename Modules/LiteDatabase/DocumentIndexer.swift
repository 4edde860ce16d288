import LiteStorage

/// A change of a document's current revision, as something kept in step with the documents
/// (an index) sees it. Bodies are Fleece encoded with the database's shared keys.
package struct DocumentBodyChange: Sendable {
    /// The document.
    package let documentID: String
    /// The record's sequence after the change (0 when the document was purged).
    package let sequence: UInt64
    /// The current revision's body before the change; nil when there was no document or its
    /// current revision was a deletion.
    package let oldBody: [UInt8]?
    /// The current revision's body after the change; nil when it is now a deletion or the
    /// document was purged (or expired).
    package let newBody: [UInt8]?
}

/// Something kept in step with the documents inside each write transaction, such as a value
/// or full-text index. Registered per database file (every open instance of the file in the
/// process calls it), it sees every change of a document's current revision: saves,
/// deletions, revisions inserted by replication, conflict resolutions, purges and expirations.
package protocol DocumentIndexer: AnyObject, Sendable {
    /// Called inside the write transaction that changes a document's current revision; an
    /// error thrown here aborts the transaction.
    func documentChanged(_ change: DocumentBodyChange, in core: DatabaseCore, txn: borrowing WriteTransaction) throws
    /// Rebuilds everything from the documents (maintenance `reindex`), inside a transaction.
    func rebuild(in core: DatabaseCore, txn: borrowing WriteTransaction) throws
    /// Called just before a write transaction that changed the document store's counters
    /// commits, with the counters when it began and now (so an index can record which state
    /// it reflects); an error thrown here aborts the transaction. Does nothing by default.
    func transactionWillCommit(from before: DocumentStoreState, to after: DocumentStoreState,
                               in core: DatabaseCore, txn: borrowing WriteTransaction) throws
}

extension DocumentIndexer {
    /// Does nothing.
    package func transactionWillCommit(from before: DocumentStoreState, to after: DocumentStoreState,
                                       in core: DatabaseCore, txn: borrowing WriteTransaction) throws {}
}
