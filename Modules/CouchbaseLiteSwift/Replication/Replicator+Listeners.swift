import Dispatch

extension Replicator {
    /// Calls `listener` with every status change, on a serial queue of the replicator.
    @discardableResult
    @preconcurrency
    public func addChangeListener(_ listener: @escaping @Sendable (ReplicatorChange) -> Void) -> ListenerToken {
        addChangeListener(withQueue: nil, listener)
    }

    /// Calls `listener` with every status change, on `queue` (default: a serial queue of the
    /// replicator).
    @discardableResult
    @preconcurrency
    public func addChangeListener(withQueue queue: DispatchQueue?,
                                  _ listener: @escaping @Sendable (ReplicatorChange) -> Void) -> ListenerToken {
        let queue = queue ?? listenerQueue
        let id = state.withLock { state -> UInt64 in
            defer { state.nextListenerID += 1 }
            state.changeListeners[state.nextListenerID] = (queue, listener)
            return state.nextListenerID
        }
        return ListenerToken(id: id) { [weak self] in
            _ = self?.state.withLock { $0.changeListeners.removeValue(forKey: id) }
        }
    }

    /// Calls `listener` with the documents pushed and pulled (and those that failed), in
    /// batches, on a serial queue of the replicator.
    @discardableResult
    @preconcurrency
    public func addDocumentReplicationListener(
        _ listener: @escaping @Sendable (DocumentReplication) -> Void) -> ListenerToken {
        addDocumentReplicationListener(withQueue: nil, listener)
    }

    /// As ``addDocumentReplicationListener(_:)``, on `queue`.
    @discardableResult
    @preconcurrency
    public func addDocumentReplicationListener(
        withQueue queue: DispatchQueue?, _ listener: @escaping @Sendable (DocumentReplication) -> Void) -> ListenerToken {
        let queue = queue ?? listenerQueue
        let id = state.withLock { state -> UInt64 in
            defer { state.nextListenerID += 1 }
            state.documentListeners[state.nextListenerID] = (queue, listener)
            return state.nextListenerID
        }
        return ListenerToken(id: id) { [weak self] in
            _ = self?.state.withLock { $0.documentListeners.removeValue(forKey: id) }
        }
    }

    /// Removes a listener added with one of the `add…Listener` methods.
    public func removeChangeListener(withToken token: ListenerToken) {
        token.remove()
    }

    /// The statuses from now on, as an async sequence; it ends when the replicator stops
    /// (after yielding the `.stopped` status) or when the consuming task is cancelled.
    ///
    /// ```swift
    /// replicator.start()
    /// for await status in replicator.statusChanges() where status.activity == .idle { break }
    /// ```
    public func statusChanges() -> AsyncStream<Status> {
        let (stream, continuation) = AsyncStream<Status>.makeStream(bufferingPolicy: .unbounded)
        let id = state.withLock { state -> UInt64 in
            defer { state.nextListenerID += 1 }
            state.statusContinuations[state.nextListenerID] = continuation
            return state.nextListenerID
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.statusContinuations.removeValue(forKey: id) }
        }
        return stream
    }
}
