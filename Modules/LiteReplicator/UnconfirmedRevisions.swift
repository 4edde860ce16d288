import LiteDatabase
import LiteSupport

/// Revisions sent to one peer whose reply never came because the connection ended first: the
/// peer may have saved them or not. A replicator keeps one across its reconnections, so that a
/// proposal the peer refuses with 409 can be made again with such a revision as the parent
/// (the peer accepts it only if that revision is its current one, so a wrong guess costs one
/// more refusal, never a conflict). Without it, a document whose push reply was lost was
/// proposed with its older parent and refused until the peer happened to list it again
/// (found by the soak test).
package final class UnconfirmedRevisions: Sendable {
    /// At most this many documents are remembered (the oldest entries go first); the pull's
    /// listing of the peer's revisions corrects whatever is forgotten.
    static let capacity = 10_000

    private let state = Locked<(byDocument: [String: [RevisionID]], order: [String])>(([:], []))

    /// An empty memory.
    package init() {}

    /// Remembers that `revision` of `documentID` was sent and not confirmed.
    package func add(documentID: String, revision: RevisionID) {
        state.withLock { state in
            if state.byDocument[documentID] == nil {
                state.order.append(documentID)
                if state.order.count > Self.capacity {
                    let forgotten = state.order.removeFirst()
                    state.byDocument.removeValue(forKey: forgotten)
                }
            }
            var revisions = state.byDocument[documentID, default: []]
            if !revisions.contains(revision) { revisions.append(revision) }
            // A handful per document: the newest matter (older ones the peer has replaced).
            if revisions.count > 8 { revisions.removeFirst(revisions.count - 8) }
            state.byDocument[documentID] = revisions
        }
    }

    /// The unconfirmed revisions of `documentID`.
    package func revisions(of documentID: String) -> [RevisionID] {
        state.withLock { $0.byDocument[documentID] ?? [] }
    }

    /// Forgets `documentID` (the peer confirmed a newer revision).
    package func remove(documentID: String) {
        state.withLock { state in
            guard state.byDocument.removeValue(forKey: documentID) != nil else { return }
            state.order.removeAll { $0 == documentID }
        }
    }

    /// Forgets one revision of `documentID` (it was tried as a parent and refused).
    package func remove(documentID: String, revision: RevisionID) {
        state.withLock { state in
            guard var revisions = state.byDocument[documentID] else { return }
            revisions.removeAll { $0 == revision }
            if revisions.isEmpty {
                state.byDocument.removeValue(forKey: documentID)
                state.order.removeAll { $0 == documentID }
            } else {
                state.byDocument[documentID] = revisions
            }
        }
    }
}
