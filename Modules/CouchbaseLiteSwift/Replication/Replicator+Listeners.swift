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
        let id = register((queue ?? listenerQueue, listener), in: \.changeListeners)
        return ListenerToken(id: id) { [weak self] in self?.unregister(id, from: \.changeListeners) }
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
        let id = register((queue ?? listenerQueue, listener), in: \.documentListeners)
        return ListenerToken(id: id) { [weak self] in self?.unregister(id, from: \.documentListeners) }
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
        let id = register(continuation, in: \.statusContinuations)
        continuation.onTermination = { [weak self] _ in self?.unregister(id, from: \.statusContinuations) }
        return stream
    }

    /// Keeps `entry` in `registry` under a new ID (listeners and status streams share the
    /// numbering), until ``unregister(_:from:)`` with that ID.
    private func register<Entry>(_ entry: Entry, in registry: WritableKeyPath<State, [UInt64: Entry]>) -> UInt64 {
        state.withLock { state in
            defer { state.nextListenerID += 1 }
            state[keyPath: registry][state.nextListenerID] = entry
            return state.nextListenerID
        }
    }

    private func unregister<Entry>(_ id: UInt64, from registry: WritableKeyPath<State, [UInt64: Entry]>) {
        _ = state.withLock { $0[keyPath: registry].removeValue(forKey: id) }
    }
}
