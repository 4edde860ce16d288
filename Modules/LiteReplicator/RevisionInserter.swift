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

    struct Item: Sendable {
        let revision: IncomingRevision
        let allowConflict: Bool
        let continuation: CheckedContinuation<ReplicationDatabase.InsertOutcome, any Error>
    }

    private let core: DatabaseCore
    private let remoteID: UInt16?
    private let filter: (@Sendable (ReplicationDocumentInfo) throws -> Bool)?
    private let state = Locked<(pending: [Item], flushing: Bool)>(([], false))

    init(core: DatabaseCore, remoteID: UInt16?, filter: (@Sendable (ReplicationDocumentInfo) throws -> Bool)?) {
        self.core = core
        self.remoteID = remoteID
        self.filter = filter
    }

    /// Saves `revision`; returns once its transaction has committed.
    func insert(_ revision: IncomingRevision, allowConflict: Bool) async throws -> ReplicationDatabase.InsertOutcome {
        try await withCheckedThrowingContinuation { continuation in
            let startFlushing = state.withLock { state -> Bool in
                state.pending.append(Item(revision: revision, allowConflict: allowConflict, continuation: continuation))
                defer { state.flushing = true }
                return !state.flushing
            }
            if startFlushing { Task { await flushUntilEmpty() } }
        }
    }

    private func flushUntilEmpty() async {
        while true {
            let batch = state.withLock { state -> [Item] in
                let batch = Array(state.pending.prefix(Self.maxBatch))
                state.pending.removeFirst(batch.count)
                if batch.isEmpty { state.flushing = false }
                return batch
            }
            guard !batch.isEmpty else { return }
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
                    } catch let error as ReplicationError {
                        return .failure(error)
                    } catch let error as DatabaseError where Self.isRefusal(error) {
                        return .failure(error)
                    }
                }
            }
            for (item, outcome) in zip(batch, outcomes) { item.continuation.resume(with: outcome) }
        } catch {
            for item in batch { item.continuation.resume(throwing: error) }
        }
    }

    /// Errors about one revision's content, which leave the transaction usable.
    private static func isRefusal(_ error: DatabaseError) -> Bool {
        [.badRevisionID, .conflict, .invalidParameter, .corruptRevisionData, .badDocID, .notFound].contains(error.code)
    }
}
