import BLIP
import Dispatch
import Foundation
import LiteDatabase
import LiteReplicator
import LiteSupport

/// Replicates a database with a Sync Gateway, a listener, or another local database.
///
/// ```swift
/// let replicator = Replicator(config: config)
/// let token = replicator.addChangeListener { change in
///     if change.status.activity == .stopped { print("done", change.status.error ?? "") }  // allowed: the caller's code in a doc example
/// }
/// replicator.start()
/// ```
public final class Replicator: Sendable {
    /// The configuration (a copy of the one given).
    public let config: ReplicatorConfiguration

    struct State {
        var activity: ActivityLevel = .stopped
        var completed: UInt64 = 0
        var total: UInt64 = 0
        var error: (any Error)?
        var task: Task<Void, Never>?
        var running = false
        var generation = 0
        var changeListeners: [UInt64: (DispatchQueue, @Sendable (ReplicatorChange) -> Void)] = [:]
        var documentListeners: [UInt64: (DispatchQueue, @Sendable (DocumentReplication) -> Void)] = [:]
        var statusContinuations: [UInt64: AsyncStream<Status>.Continuation] = [:]
        var nextListenerID: UInt64 = 1
        var resetNextStart = false
        /// A progress-only status is queued for delivery (see ``handle(_:)``).
        var progressQueued = false
    }
    let state = Locked(State())
    /// Where statuses are coalesced and listeners without a queue of their own are called
    /// (package: tests drain it to know every status has been handed out).
    package let listenerQueue = DispatchQueue(label: "CouchbaseLite.replicator.listeners")
    /// Pushed revisions whose reply a dropped connection lost, kept across reconnections.
    let unconfirmedRevisions = UnconfirmedRevisions()

    /// Creates a replicator; it does nothing until ``start()``.
    public init(config: ReplicatorConfiguration) {
        self.config = ReplicatorConfiguration(config: config)
    }

    /// The current status.
    public var status: Status {
        state.withLock { Status(activity: $0.activity, progress: Progress(completed: $0.completed, total: $0.total),
                                error: $0.error) }
    }

    /// Starts replicating (from the saved checkpoint); does nothing if already running.
    public func start() { start(reset: false) }

    /// Starts replicating; `reset` starts from the beginning instead of the checkpoint.
    public func start(reset: Bool) {
        let generation: Int? = state.withLock { state in
            guard !state.running else { return nil }
            state.running = true
            state.generation += 1
            state.error = nil
            state.completed = 0
            state.total = 0
            return state.generation
        }
        guard let generation else { return }
        for database in usedDatabases { database.beginReplicationUse() }
        let resetNow = reset || state.withLock { state in
            defer { state.resetNextStart = false }
            return state.resetNextStart
        }
        setActivity(.connecting, error: nil)
        let task = Task(executorPreference: ThreadPoolExecutor.replication) { [self] in await run(reset: resetNow, generation: generation) }
        state.withLock { if $0.generation == generation, $0.running { $0.task = task } }
    }

    /// Stops replicating; the status becomes `.stopped` once the connection is closed.
    public func stop() {
        let task = state.withLock { $0.task }
        task?.cancel()
    }

    /// Makes the next start begin from scratch (the checkpoint is ignored); call while stopped.
    public func resetCheckpoint() {
        state.withLock { $0.resetNextStart = true }
    }

    // MARK: Running

    private func run(reset: Bool, generation: Int) async {
        let maxAttempts = config.maxAttempts > 0 ? config.maxAttempts : (config.continuous ? Int.max : 10)
        var attempt = 0
        var resetCheckpoint = reset
        var finalError: (any Error)?
        while !Task.isCancelled {
            setActivity(.connecting, error: nil)
            do {
                try await runOnce(resetCheckpoint: resetCheckpoint)
                resetCheckpoint = false
                break
            } catch is CancellationError {
                break
            } catch let error as ReplicationError {
                resetCheckpoint = false
                attempt += 1
                let publicError = CouchbaseLiteError(error)
                guard error.isTransient, attempt < maxAttempts, !Task.isCancelled else {
                    finalError = publicError
                    break
                }
                setActivity(.offline, error: publicError)
                let delay = min(config.maxAttemptWaitTime, pow(2.0, Double(min(attempt, 20))))
                do { try await Task.sleep(nanoseconds: UInt64(delay * 1_000_000_000)) } catch { break }
            } catch {
                finalError = error as? CouchbaseLiteError
                    ?? CouchbaseLiteError(.unexpectedError, "replication stopped: \(error)", underlying: error)
                break
            }
        }
        state.withLock { state in
            guard state.generation == generation else { return }
            state.task = nil
            state.running = false
        }
        for database in usedDatabases { database.endReplicationUse() }
        setActivity(.stopped, error: finalError)
    }

    /// The databases a run uses (a key change waits until no replicator does).
    private var usedDatabases: [Database] {
        [config.database] + ((config.target as? DatabaseEndpoint).map { [$0.database] } ?? [])
    }

    private func runOnce(resetCheckpoint: Bool) async throws {
        let (connection, remoteURL, cleanup) = try await connect()
        defer { cleanup() }
        var options = ReplicationOptions(push: config.replicatorType != .pull, pull: config.replicatorType != .push,
                                         continuous: config.continuous, remoteURL: remoteURL)
        options.remoteID = try CouchbaseLiteError.wrapping("numbering the remote \(remoteURL)") {
            try RemoteDatabaseIDs.id(for: remoteURL, in: config.database.core, create: true) ?? 1
        }
        options.channels = config.channels
        options.documentIDs = config.documentIDs
        options.resetCheckpoint = resetCheckpoint
        options.unconfirmedRevisions = unconfirmedRevisions
        let database = config.database
        if let filter = config.pushFilter {
            options.pushFilter = { info in filter(try Self.document(for: info, in: database), Self.flags(info)) }
        }
        if let filter = config.pullFilter {
            options.pullFilter = { info in filter(try Self.document(for: info, in: database), Self.flags(info)) }
        }
        let resolver = config.conflictResolver.flatMap { $0 is DefaultConflictResolver ? nil : $0 }
        let resolverFunction: ConflictResolverFunction? = resolver.map { resolver in
            { @Sendable conflict in try Self.resolve(conflict, with: resolver, in: database) }
        }
        setActivity(.busy, error: nil)
        var limits = ReplicationLimits()
        limits.maxBlobSize = config.maxBlobSizeFromPeer
        let session = ReplicationSession(database: database.core, connection: connection, role: .active(options),
                                         conflictResolver: resolverFunction, limits: limits) { [weak self] event in
            self?.handle(event)
        }
        try await withTaskCancellationHandler {
            try await session.runActive()
        } onCancel: {
            Task(executorPreference: ThreadPoolExecutor.replication) { await connection.close(code: 1000, reason: "") }
        }
        try Task.checkCancellation()
    }

    /// Opens the connection to the target: in memory for a local database, a WebSocket for a URL.
    private func connect() async throws -> (BLIPConnection, String, @Sendable () -> Void) {
        if let endpoint = config.target as? DatabaseEndpoint {
            let target = endpoint.database
            guard target.core.isOpen else {
                throw CouchbaseLiteError(.notOpen, "the target database \"\(target.name)\" is closed")
            }
            let (local, remote) = InMemoryBLIPTransport.pair()
            let passiveConnection = BLIPConnection(transport: remote)
            let passive = ReplicationSession(database: target.core, connection: passiveConnection,
                                             role: .passive(readOnly: false))
            let server = Task(executorPreference: ThreadPoolExecutor.replication) { await passive.serve() }
            return (BLIPConnection(transport: local), remoteURLString, { server.cancel() })
        }
        if let endpoint = config.target as? URLEndpoint {
            return try await ReplicatorNetwork.connect(to: endpoint, config: config)
        }
        throw CouchbaseLiteError(.invalidParameter, "unsupported replication target \(type(of: config.target))")
    }

    // MARK: Events

    private func handle(_ event: ReplicationEvent) {
        switch event {
        case .progress(let completed, let total):
            // Progress arrives once per document; listeners get the newest of what arrived
            // while a delivery was queued (LiteCore likewise limits progress-only calls), and
            // any other status change carries it at once. Every one of them was about 1 % of a
            // push of small documents.
            let queue = state.withLock { state -> Bool in
                state.completed = completed
                state.total = total
                defer { state.progressQueued = true }
                return !state.progressQueued
            }
            if queue { listenerQueue.async { [self] in notifyStatus(onlyIfProgressQueued: true) } }
        case .caughtUp:
            if config.continuous { setActivity(.idle, error: nil) }
        case .refused(let message):
            Database.log.log(.warning, .replicator, "Replicator: \(message)")
        case .documentsEnded(let documents):
            let listeners = state.withLock { Array($0.documentListeners.values) }
            if config.continuous, state.withLock({ $0.activity == .idle }) { setActivity(.busy, error: nil) }
            guard !listeners.isEmpty else { return }
            for isPush in [true, false] {
                let batch = documents.filter { $0.isPush == isPush }.map { document -> ReplicatedDocument in
                    var flags: DocumentFlags = []
                    if document.deleted { flags.insert(.deleted) }
                    if document.accessRemoved { flags.insert(.accessRemoved) }
                    return ReplicatedDocument(id: document.documentID, flags: flags,
                                              error: document.error.map(CouchbaseLiteError.init(failure:)))
                }
                guard !batch.isEmpty else { continue }
                let replication = DocumentReplication(replicator: self, isPush: isPush, documents: batch)
                for (queue, listener) in listeners { queue.async { listener(replication) } }
            }
        }
    }

    func setActivity(_ activity: ActivityLevel, error: (any Error)?) {
        state.withLock { state in
            state.activity = activity
            if error != nil || activity != .stopped { state.error = error }
        }
        notifyStatus()
    }

    /// Hands the current status to every listener; done under the lock so that listeners see
    /// statuses in the order they happened.
    /// With `onlyIfProgressQueued`, does nothing when another status carried the progress since
    /// it was queued.
    private func notifyStatus(onlyIfProgressQueued: Bool = false) {
        let finished = state.withLock { state -> [AsyncStream<Status>.Continuation] in
            if onlyIfProgressQueued && !state.progressQueued { return [] }
            state.progressQueued = false
            let current = Status(activity: state.activity,
                                 progress: Progress(completed: state.completed, total: state.total), error: state.error)
            let change = ReplicatorChange(replicator: self, status: current)
            for (queue, listener) in state.changeListeners.values { queue.async { listener(change) } }
            for continuation in state.statusContinuations.values { continuation.yield(current) }
            return current.activity == .stopped ? Array(state.statusContinuations.values) : []
        }
        // Outside the lock: finishing runs the stream's termination handler, which takes it.
        for continuation in finished { continuation.finish() }
    }
}
