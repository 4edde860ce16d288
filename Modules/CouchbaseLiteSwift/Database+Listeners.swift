import Foundation

extension Database {
    /// Calls `listener` after every committed change to the database (also changes made by
    /// other open instances of it in this process), on the database's listener queue.
    @discardableResult
    @preconcurrency
    public func addChangeListener(_ listener: @escaping @Sendable (DatabaseChange) -> Void) -> ListenerToken {
        addChangeListener(withQueue: nil, listener: listener)
    }

    /// Calls `listener` after every committed change to the database, on `queue` (default: a
    /// serial queue of this database; Linux programs often run no main queue).
    @discardableResult
    @preconcurrency
    public func addChangeListener(withQueue queue: DispatchQueue?,
                                  listener: @escaping @Sendable (DatabaseChange) -> Void) -> ListenerToken {
        let queue = queue ?? listenerQueue
        let id = core.addChangeObserver { [weak self] ids in
            guard let self else { return }
            let change = DatabaseChange(database: self, documentIDs: ids)
            queue.async { listener(change) }
        }
        return ListenerToken(id: id) { [weak self] in self?.core.removeChangeObserver(id) }
    }

    /// Calls `listener` after every committed change to the document `id`.
    @discardableResult
    @preconcurrency
    public func addDocumentChangeListener(withID id: String,
                                          listener: @escaping @Sendable (DocumentChange) -> Void) -> ListenerToken {
        addDocumentChangeListener(withID: id, queue: nil, listener: listener)
    }

    /// Calls `listener` on `queue` after every committed change to the document `id`.
    @discardableResult
    @preconcurrency
    public func addDocumentChangeListener(withID id: String, queue: DispatchQueue?,
                                          listener: @escaping @Sendable (DocumentChange) -> Void) -> ListenerToken {
        let queue = queue ?? listenerQueue
        let observer = core.addChangeObserver { [weak self] ids in
            guard let self, ids.contains(id) else { return }
            let change = DocumentChange(database: self, documentID: id)
            queue.async { listener(change) }
        }
        return ListenerToken(id: observer) { [weak self] in self?.core.removeChangeObserver(observer) }
    }

    /// Stops a listener.
    public func removeChangeListener(withToken token: ListenerToken) {
        token.remove()
    }

    /// The database's changes as an async sequence; it ends when the consuming task is
    /// cancelled.
    ///
    /// ```swift
    /// for await change in database.changes() {
    ///     refresh(change.documentIDs)
    /// }
    /// ```
    public func changes() -> AsyncStream<DatabaseChange> {
        AsyncStream { continuation in
            let id = core.addChangeObserver { [weak self] ids in
                guard let self else { return }
                continuation.yield(DatabaseChange(database: self, documentIDs: ids))
            }
            continuation.onTermination = { [weak self] _ in self?.core.removeChangeObserver(id) }
        }
    }

    /// One document's changes as an async sequence.
    public func documentChanges(withID id: String) -> AsyncStream<DocumentChange> {
        AsyncStream { continuation in
            let observer = core.addChangeObserver { [weak self] ids in
                guard let self, ids.contains(id) else { return }
                continuation.yield(DocumentChange(database: self, documentID: id))
            }
            continuation.onTermination = { [weak self] _ in self?.core.removeChangeObserver(observer) }
        }
    }
}
