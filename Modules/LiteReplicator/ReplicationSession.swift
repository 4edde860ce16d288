import BLIP
import Foundation
import LiteDatabase
import LiteSupport

/// One replication over one BLIP connection. The same object serves both roles: the active
/// side (a `Replicator`) runs ``runActive()``; the passive side (a listener) runs
/// ``serve()``. Either way it answers every request the peer sends (the protocol is
/// symmetric: a pull is the peer pushing to us).
package final class ReplicationSession: Sendable {
    /// Which side of the connection this is.
    package enum Role: Sendable {
        /// Opened the connection; keeps the checkpoint; pushes with `proposeChanges`.
        case active(ReplicationOptions)
        /// Accepted the connection; keeps peers' checkpoints; pushes with `changes`.
        case passive(readOnly: Bool)
    }

    let database: ReplicationDatabase
    let connection: BLIPConnection
    let role: Role
    /// Receives events; progress is reported while the session's state is locked, so a handler
    /// must not call back into the session.
    let onEvent: @Sendable (ReplicationEvent) -> Void
    let conflictResolver: ConflictResolverFunction?
    let state = Locked(State())
    /// Saves received revisions, several per transaction.
    let inserter: RevisionInserter
    /// Passive side: received revisions are answered from the inserter, without a task each
    /// (false: each one is saved by its own task, as the active side does; tests compare the two).
    let answersRevisionsFromInserter: Bool
    /// What the peer may make this session do.
    let limits: ReplicationLimits
    /// Received revisions saved by tasks, a bounded number at once.
    let revisionLane: TaskLane
    /// `getAttachment` replies, a bounded number at once. Apart from the revisions: a revision
    /// waits on the peer's blob replies, so if blob replies queued behind revisions, two
    /// sides pushing blobs to each other could wait on each other for ever.
    let blobReplyLane: TaskLane

    struct State {
        /// The peer's `maxHistory` (from its replies).
        var peerMaxHistory = 20
        /// The peer said it understands blobs.
        var peerUnderstandsBlobs = true
        /// Active pull: the peer said it is caught up.
        var pullCaughtUp = false
        /// Active pull: remote sequences listed and not yet saved.
        var pullTracker = SequenceTracker<String>()
        /// Woken when the pull may have finished.
        var pullWaiters: [CheckedContinuation<Void, Never>] = []
        /// Counters for progress.
        var completed: UInt64 = 0
        var total: UInt64 = 0
        /// Tasks this session started for the peer (a passive pusher, revs being saved).
        var tasks: [UInt64: Task<Void, Never>] = [:]
        /// Numbers the tasks (a counter: a random UUID per received revision was 1.5 % of a push).
        var nextTaskNumber: UInt64 = 0
        /// The first fatal error (stops the session).
        var failure: ReplicationError?
        var checkpointKeeper: CheckpointKeeper?
        /// Passive side: a `subChanges` was accepted (one per connection).
        var servingSubChanges = false
        /// Active pull: `deltas=true` was said (once, on the first `changes` reply).
        var announcedDeltas = false
    }

    package convenience init(database: DatabaseCore, connection: BLIPConnection, role: Role,
                 conflictResolver: ConflictResolverFunction? = nil, limits: ReplicationLimits = ReplicationLimits(),
                 onEvent: @escaping @Sendable (ReplicationEvent) -> Void = { _ in }) {
        self.init(database: database, connection: connection, role: role, conflictResolver: conflictResolver,
                  answersRevisionsFromInserter: true, limits: limits, onEvent: onEvent)
    }

    init(database: DatabaseCore, connection: BLIPConnection, role: Role, conflictResolver: ConflictResolverFunction?,
         answersRevisionsFromInserter: Bool, limits: ReplicationLimits = ReplicationLimits(),
         onEvent: @escaping @Sendable (ReplicationEvent) -> Void) {
        self.answersRevisionsFromInserter = answersRevisionsFromInserter
        self.limits = limits
        revisionLane = TaskLane(limit: limits.maxConcurrentRevisions)
        blobReplyLane = TaskLane(limit: limits.maxConcurrentBlobReplies)
        self.database = ReplicationDatabase(core: database)
        var remote: UInt16?
        var filter: (@Sendable (ReplicationDocumentInfo) throws -> Bool)?
        if case .active(let options) = role {
            remote = options.remoteID
            filter = options.pullFilter
        }
        inserter = RevisionInserter(core: database, remoteID: remote, filter: filter)
        self.connection = connection
        self.role = role
        self.conflictResolver = conflictResolver
        self.onEvent = onEvent
    }

    var options: ReplicationOptions? {
        if case .active(let options) = role { return options }
        return nil
    }

    var isActive: Bool { options != nil }

    /// The remote number the documents' remote-revision maps use (active side only: a
    /// passive side does not track what its many clients have).
    var remoteID: UInt16? { options?.remoteID }

    // MARK: Serving requests

    /// Answers the peer's requests until the connection closes; returns the error it closed
    /// with (nil: a clean close).
    @discardableResult
    package func serve() async -> BLIPError? {
        connection.start()
        let reader = Task(executorPreference: ThreadPoolExecutor.replication) { [self] in
            for await request in connection.requests {
                await handle(request)
            }
        }
        let result = await connection.waitUntilClosed()
        await reader.value
        // Work already received finishes (a revision in its transaction is saved); what waits
        // on the peer stops. Then the session is over for good.
        for task in cancelTasks() { await task.value }
        // Revisions answered from the inserter have no task of their own; a conflict one of
        // them left is resolved by a task its completion starts, so tasks are ended once more.
        await inserter.waitUntilIdle()
        for task in cancelTasks() { await task.value }
        wakePullWaiters()
        return result
    }

    /// Runs `body` as a task the session tracks (cancelled when the session ends).
    func spawn(_ body: @escaping @Sendable () async -> Void) {
        let id = state.withLock { state in
            defer { state.nextTaskNumber += 1 }
            return state.nextTaskNumber
        }
        let task = Task(executorPreference: ThreadPoolExecutor.replication) { [self] in
            await body()
            _ = state.withLock { $0.tasks.removeValue(forKey: id) }
        }
        state.withLock { $0.tasks[id] = task }
    }

    /// Runs `body` as a tracked task when `lane` has room, else queues it for the lane's next
    /// free task.
    func spawn(in lane: TaskLane, _ body: @escaping @Sendable () async -> Void) {
        guard lane.admit(body) else { return }
        spawn {
            var work: TaskLane.Work? = body
            while let current = work {
                await current()
                work = lane.next()
            }
        }
    }

    @discardableResult
    func cancelTasks() -> [Task<Void, Never>] {
        let tasks = state.withLock { state in
            defer { state.tasks.removeAll() }
            return Array(state.tasks.values)
        }
        for task in tasks { task.cancel() }
        return tasks
    }

    /// Records a fatal error and closes the connection.
    func fail(_ error: ReplicationError) async {
        let first = state.withLock { state -> Bool in
            guard state.failure == nil else { return false }
            state.failure = error
            return true
        }
        if first { await connection.close(code: 1011, reason: error.message) }
    }

    // Progress is reported under the lock, so reports leave in the order the counts changed:
    // reported after it, two tasks could hand the replicator the older counts last (seen under
    // load as a final status of 206 of 300 documents). The handler must not call back into the
    // session (the Replicator's records the counts and queues a notification).
    func addTotal(_ count: Int) {
        guard count > 0 else { return }
        state.withLock { state in
            state.total += UInt64(count)
            onEvent(.progress(completed: state.completed, total: state.total))
        }
    }

    func addCompleted(_ count: Int) {
        guard count > 0 else { return }
        state.withLock { state in
            state.completed += UInt64(count)
            onEvent(.progress(completed: state.completed, total: state.total))
        }
    }

    func wakePullWaiters() {
        let waiters = state.withLock { state in
            defer { state.pullWaiters.removeAll() }
            return state.pullWaiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
