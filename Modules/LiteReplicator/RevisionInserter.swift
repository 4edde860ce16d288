import LiteDatabase
import LiteStorage
import LiteSupport

/// Saves received revisions in shared transactions (group commit): a revision that arrives
/// while a batch commits joins the next batch, so a busy pull commits once per batch rather
/// than once per revision, and a lone revision is saved at once. (LiteCore 2.8 batches too,
/// after a 20 ms delay.)
final class RevisionInserter: Sendable {
    /// Revisions per transaction at most.
    static let maxBatch = 200

    /// What a caller learns once its revision's transaction committed (or failed); runs in the
    /// inserter's own task before it takes the next batch, so it must be quick and must not block.
    typealias Completion = @Sendable (Result<ReplicationDatabase.InsertOutcome, any Error>) -> Void

    struct Item: Sendable {
        let revision: IncomingRevision
        let allowConflict: Bool
        let completion: Completion
    }

    private let core: DatabaseCore
    private let remoteID: UInt16?
    private let filter: (@Sendable (ReplicationDocumentInfo) throws -> Bool)?
    private struct State {
        var pending: [Item] = []
        var flushing = false
        /// Woken when nothing is pending or being saved.
        var idleWaiters: [CheckedContinuation<Void, Never>] = []
    }
    private let state = Locked(State())

    init(core: DatabaseCore, remoteID: UInt16?, filter: (@Sendable (ReplicationDocumentInfo) throws -> Bool)?) {
        self.core = core
        self.remoteID = remoteID
        self.filter = filter
    }

    /// Saves `revision`; returns once its transaction has committed.
    func insert(_ revision: IncomingRevision, allowConflict: Bool) async throws -> ReplicationDatabase.InsertOutcome {
        try await withCheckedThrowingContinuation { continuation in
            submit(revision, allowConflict: allowConflict) { continuation.resume(with: $0) }
        }
    }

    /// Queues `revision` for saving and returns at once; `completion` gets the outcome after
    /// its transaction. (A listener answers a pushed revision from there, without a task and
    /// a continuation per revision.)
    func submit(_ revision: IncomingRevision, allowConflict: Bool, completion: @escaping Completion) {
        let startFlushing = state.withLock { state -> Bool in
            state.pending.append(Item(revision: revision, allowConflict: allowConflict, completion: completion))
            defer { state.flushing = true }
            return !state.flushing
        }
        if startFlushing { Task(executorPreference: ThreadPoolExecutor.replication) { [self] in await flushUntilEmpty() } }
    }

    /// Waits until every revision submitted so far has been saved or refused (a session that
    /// ends lets what it received finish).
    func waitUntilIdle() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let idle = state.withLock { state -> Bool in
                if !state.flushing { return true }
                state.idleWaiters.append(continuation)
                return false
            }
            if idle { continuation.resume() }
        }
    }

    private func flushUntilEmpty() async {
        while true {
            let (batch, idleWaiters) = state.withLock { state -> ([Item], [CheckedContinuation<Void, Never>]) in
                let batch = Array(state.pending.prefix(Self.maxBatch))
                state.pending.removeFirst(batch.count)
                guard batch.isEmpty else { return (batch, []) }
                state.flushing = false
                defer { state.idleWaiters.removeAll() }
                return ([], state.idleWaiters)
            }
            guard !batch.isEmpty else {
                idleWaiters.forEach { $0.resume() }
                return
            }
            await write(batch)
        }
    }

    /// One transaction for the batch. A revision refused for its own reasons (conflict, bad
    /// body, filter) fails alone; a storage failure fails the whole batch, which is then not
    /// committed.
    private func write(_ batch: [Item]) async {
        let (remoteID, filter) = (remoteID, filter)
        do {
            let outcomes = try await core.write { core in
                try batch.map { item -> Result<ReplicationDatabase.InsertOutcome, any Error> in
                    do {
                        return .success(try ReplicationDatabase.insert(item.revision, into: core, remoteID: remoteID,
                                                                       allowConflict: item.allowConflict, filter: filter))
                    } catch where Self.isRefusal(error) {
                        return .failure(error)
                    }
                }
            }
            for (item, outcome) in zip(batch, outcomes) { item.completion(outcome) }
        } catch {
            for item in batch { item.completion(.failure(error)) }
        }
    }

    /// Errors about one revision's content, which leave the transaction usable: the
    /// replicator's own refusals and the database's verdicts on the revision.
    static func isRefusal(_ error: any Error) -> Bool {
        if error is ReplicationError { return true }
        guard let error = error as? DatabaseError else { return false }
        return [.badRevisionID, .conflict, .invalidParameter, .corruptRevisionData, .badDocID, .notFound].contains(error.code)
    }
}
