import Foundation
import LiteDatabase
import LiteQuery
import LiteSupport

/// What a live query's listener receives: the query and its new results, or the error that
/// stopped it from running.
public struct QueryChange: Sendable {
    /// The query whose results changed.
    public let query: Query
    /// The new results, when the query ran.
    public let results: ResultSet?
    /// Why the query could not run, when it could not.
    public let error: (any Error)?
}

/// Keeps one listener's query running: it runs once at once, then after every commit to the
/// database, and tells the listener only when the rows differ from the last ones it told.
final class LiveQuerier: Sendable {
    private let query: Query
    private let database: Database
    private let deliveryQueue: DispatchQueue
    private let workQueue = DispatchQueue(label: "CouchbaseLite.liveQuery")
    private let listener: @Sendable (QueryChange) -> Void

    private struct State: Sendable {
        var lastRows: [[QueryValue]]?
        var lastError: String?
        var observer: UInt64?
        var stopped = false
        /// A run is queued and has not started: later commits need no run of their own.
        var runPending = false
    }
    private let state = Locked(State())

    init(query: Query, database: Database, queue: DispatchQueue, listener: @escaping @Sendable (QueryChange) -> Void) {
        self.query = query
        self.database = database
        deliveryQueue = queue
        self.listener = listener
    }

    func start() {
        let observer = database.core.addChangeObserver { [weak self] _ in self?.scheduleRun() }
        state.withLock { $0.observer = observer }
        scheduleRun()
    }

    func stop() {
        let observer = state.withLock { state -> UInt64? in
            state.stopped = true
            defer { state.observer = nil }
            return state.observer
        }
        if let observer { database.core.removeChangeObserver(observer) }
    }

    /// Queues a run unless one is queued and not started yet (that one will see this commit):
    /// a burst of commits costs one or two runs, not one each.
    private func scheduleRun() {
        let queue = state.withLock { state -> Bool in
            guard !state.runPending, !state.stopped else { return false }
            state.runPending = true
            return true
        }
        if queue { workQueue.async { [self] in run() } }
    }

    private func run() {
        let stopped = state.withLock { state -> Bool in
            state.runPending = false
            return state.stopped
        }
        guard !stopped else { return }
        let change: QueryChange?
        do {
            let (columns, rows) = try query.runRows()
            change = state.withLock { state -> QueryChange? in
                guard state.lastRows != rows || state.lastError != nil else { return nil }
                state.lastRows = rows
                state.lastError = nil
                return QueryChange(query: query, results: ResultSet(columnNames: columns, rows: rows), error: nil)
            }
        } catch {
            change = state.withLock { state -> QueryChange? in
                let text = "\(error)"
                guard state.lastError != text else { return nil }
                state.lastError = text
                state.lastRows = nil
                return QueryChange(query: query, results: nil, error: error)
            }
        }
        guard let change else { return }
        deliveryQueue.async { [self] in
            // A listener removed meanwhile never hears from its query again.
            guard !state.withLock({ $0.stopped }) else { return }
            listener(change)
        }
    }
}

extension Query {
    /// Makes the query live: `listener` gets its results now and again whenever a commit to
    /// the database changes them, on `queue` (default: the database's listener queue).
    ///
    /// ```swift
    /// let token = query.addChangeListener { change in
    ///     for result in change.results ?? ResultSet.empty { print(result.toDictionary()) }  // allowed: the caller's code in a doc example
    /// }
    /// ```
    @discardableResult
    @preconcurrency
    public func addChangeListener(withQueue queue: DispatchQueue? = nil,
                                  _ listener: @escaping @Sendable (QueryChange) -> Void) -> ListenerToken {
        guard let database else {
            let change = QueryChange(query: self, results: nil,
                                     error: CouchbaseLiteError(.invalidQuery, "the query has no data source"))
            (queue ?? .global()).async { listener(change) }
            return ListenerToken(id: 0) {}
        }
        let querier = LiveQuerier(query: self, database: database, queue: queue ?? database.listenerQueue, listener: listener)
        querier.start()
        return ListenerToken(id: 0) { querier.stop() }
    }

    /// Stops a live query's listener; it is not called again.
    public func removeChangeListener(withToken token: ListenerToken) {
        token.remove()
    }

    /// The query's results now and after every change to them, as an async sequence.
    public func changes() -> AsyncStream<QueryChange> {
        AsyncStream { continuation in
            let token = addChangeListener(withQueue: DispatchQueue(label: "CouchbaseLite.liveQuery.stream")) { change in
                continuation.yield(change)
            }
            continuation.onTermination = { _ in token.remove() }
        }
    }
}
