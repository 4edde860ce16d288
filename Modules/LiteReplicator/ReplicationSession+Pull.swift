import BLIP
import Fleece
import Foundation
import LiteDatabase

extension ReplicationSession {
    /// Marks a pulled revision's remote sequence complete (saved, refused or not sent), or,
    /// when not `saved`, held: finished for this pass, with the checkpoint kept before it.
    func completePulled(sequence: String?, saved: Bool = true) async {
        let key = sequence.map(Self.normalizedSequence)
        state.withLock { state in
            if saved {
                state.pullTracker.complete { key == nil || $0 == key }
            } else {
                state.pullTracker.hold { key == nil || $0 == key }
            }
        }
        addCompleted(1)
        // Awaited: the checkpoint holds this progress before anyone learns the pull is done.
        await pullProgressed()
    }

    /// The JSON text of a `sequence` property, comparable with change-list entries.
    static func normalizedSequence(_ property: String) -> String {
        // A plain number (LiteCore's sequences) is its own JSON text.
        if !property.isEmpty, property.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) { return property }
        if let value = MessageJSON.decode(Array(property.utf8)) { return MessageJSON.encode(value) }
        return MessageJSON.quoted(property)
    }

    /// Saves the pull's progress into the checkpoint and wakes whoever waits for the end.
    func pullProgressed() async {
        let safe = state.withLock { $0.pullTracker.safeSequence }
        if let safe, let keeper = state.withLock({ $0.checkpointKeeper }) {
            await keeper.update(remote: safe)
        }
        checkPullFinished()
    }

    /// Whether a one-shot pull has everything: the peer said it is caught up and every
    /// revision asked for has been saved or refused.
    var pullFinished: Bool {
        state.withLock { $0.pullCaughtUp && $0.pullTracker.isIdle }
    }

    func checkPullFinished() {
        if pullFinished || state.withLock({ $0.failure != nil }) {
            wakePullWaiters()
            onEvent(.caughtUp)
        }
    }

    /// Waits until ``pullFinished`` or the connection ends.
    func waitForPullToFinish() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state -> Bool in
                if (state.pullCaughtUp && state.pullTracker.isIdle) || state.failure != nil { return true }
                state.pullWaiters.append(continuation)
                return false
            }
            if ready { continuation.resume() }
        }
    }

    /// Resolves a conflict the pulled revision `pulled` made, as Couchbase Lite does: the
    /// pulled (remote) branch wins in the tree, so the history matches the server's; if the
    /// decision keeps other content, that is saved as a new revision on top of it.
    func resolveConflict(documentID id: String, pulled: RevisionID) async throws {
        let core = database.core
        guard let document = try core.document(id: id), let local = document.current,
              let remote = document.tree.revision(pulled), local.id != remote.id else { return }
        let conflict = ReplicationConflict(
            documentID: id, localRevision: local.id, localBody: local.isDeleted ? nil : (local.body ?? StoredDocument.emptyDictionary),
            remoteRevision: remote.id, remoteBody: remote.isDeleted ? nil : (remote.body ?? StoredDocument.emptyDictionary))
        let decision: ConflictDecision
        if let conflictResolver {
            decision = try await conflictResolver(conflict)
        } else {
            decision = conflict.defaultDecision
        }
        let localID = local.id
        let remoteID = remote.id
        let remoteDeleted = remote.isDeleted
        _ = try await core.write { core in
            switch decision {
            case .useRemote:
                return try core.resolveConflict(id: id, winner: remoteID, loser: localID)
            case .useLocal:
                return try core.resolveConflict(id: id, winner: remoteID, loser: localID,
                                                mergedBody: conflict.localBody, mergedDeleted: conflict.localBody == nil)
            case .merged(let json):
                let body = try json.withUnsafeBytes {
                    try JSONConverter.fleece(fromJSONBytes: $0, sharedKeys: core.sharedKeys)
                }
                return try core.resolveConflict(id: id, winner: remoteID, loser: localID, mergedBody: body)
            case .delete:
                if remoteDeleted { return try core.resolveConflict(id: id, winner: remoteID, loser: localID) }
                return try core.resolveConflict(id: id, winner: remoteID, loser: localID, mergedDeleted: true)
            }
        }
    }
}
