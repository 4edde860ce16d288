import BLIP
import Foundation
import LiteDatabase
import LiteSupport

extension ReplicationSession {
    /// How local changes are offered.
    enum PushMode: Sendable {
        /// Active side: `proposeChanges` (conflict-free; the peer answers with status codes).
        case propose
        /// Passive side answering `subChanges`: `changes` (the peer answers with what it has).
        case changes(activeOnly: Bool)
    }

    /// Sends local changes after `since` to the peer: lists them in batches, sends the
    /// revisions the peer wants (a bounded number in flight), and — on the active side —
    /// records progress in the checkpoint. Continuous: then waits for new changes, forever.
    func push(mode: PushMode, since start: UInt64, continuous: Bool, batchSize: Int,
              documentIDs: Set<String>?) async throws {
        let changeSignal = DatabaseChangeSignal(core: database.core)
        defer { changeSignal.stop() }
        let tracker = Locked(SequenceTracker<UInt64>(start: start))
        let synced = Locked<[(id: String, sequence: UInt64, revision: RevisionID)]>([])
        let maxInFlight = options?.maxRevsInFlight ?? 100
        // Documents with a revision awaiting the peer's reply.
        let pushing = Locked(Set<String>())
        // Proposals the peer refused with 409, and whether they were offered again.
        let refused = Locked(0)
        var retriedRefusals = false
        var since = start
        var announcedCaughtUp = false
        var stopListing = false
        // Revisions awaiting the peer's reply; each reply is handled on the connection's reader.
        let inFlight = RevisionsInFlight()
        while true {
            try Task.checkCancellation()
            // What the peer has confirmed so far is recorded before listing, so proposals
            // name the parents it has (the checkpoint keeps its own cadence).
            try await flushPushProgress(tracker: tracker, synced: synced, checkpoint: false)
            let activeOnly: Bool
            // `activeOnly` (a first pull into an empty database) skips the deletions of
            // the initial listing only: once caught up, a continuous pull must get later
            // deletions (found by the soak test: they never reached the client).
            if case .changes(let flag) = mode { activeOnly = flag && !announcedCaughtUp } else { activeOnly = false }
            let batch = try database.changes(since: since, limit: batchSize, remoteID: remoteID,
                                             activeOnly: activeOnly, documentIDs: documentIDs)
            if batch.lastSequence == since || stopListing {
                // Nothing new: finish what is in flight, say so, then wait or stop.
                try await inFlight.wait(untilAtMost: 0)
                try await flushPushProgress(tracker: tracker, synced: synced)
                if case .changes = mode, !announcedCaughtUp {
                    announcedCaughtUp = true
                    try await sendNoReply(BLIPMessage(urgent: true, properties: ["Profile": "changes"],
                                                      body: Array("[]".utf8)))
                }
                if !continuous, !retriedRefusals, isActive, options?.pull == true, refused.withLock({ $0 }) > 0 {
                    // A proposal refused because we did not know the peer's revision (the
                    // reply to its push was lost) goes again once the pull has listed the
                    // peer's revisions, which records them and relists the document
                    // (LiteCore's pusher retries such conflicts after the pull likewise).
                    retriedRefusals = true
                    await waitForPullToFinish()
                    continue
                }
                if isActive { onEvent(.caughtUp) }
                guard continuous else { break }
                await changeSignal.wait()
                continue
            }
            var offered = try filtered(batch.changes)
            if pushing.withLock({ busy in offered.contains { busy.contains($0.documentID) } }) {
                // A document changed again while its previous revision awaits the peer's
                // reply: wait for the replies in flight and record them, then list again,
                // so the new revision is proposed with the parent the peer has (LiteCore
                // likewise holds a document back while it is being pushed). Proposed with
                // the older parent, it was refused with 409 (found by the soak test).
                try await inFlight.wait(untilAtMost: 0)
                continue
            }
            since = batch.lastSequence
            // Sequences with nothing to offer are done at once.
            let offeredSequences = Set(offered.map(\.sequence))
            tracker.withLock { tracker in
                for change in batch.changes where !offeredSequences.contains(change.sequence) {
                    tracker.add(change.sequence, done: true)
                }
                for change in offered { tracker.add(change.sequence) }
                // Sequences the listing skipped (the peer's own revisions) count as done.
                tracker.add(batch.lastSequence, done: true)
            }
            if offered.isEmpty { continue }
            offered.sort { $0.sequence < $1.sequence }
            let wanted = try await offer(offered, mode: mode, tracker: tracker, synced: synced, refused: refused)
            // As LiteCore's passive pusher: say "caught up" as soon as a listing reaches
            // the end, not after every revision is answered.
            if case .changes = mode, batch.exhausted, !announcedCaughtUp {
                announcedCaughtUp = true
                try await sendNoReply(BLIPMessage(urgent: true, properties: ["Profile": "changes"],
                                                  body: Array("[]".utf8)))
                // One-shot: what changes after the end was reached (e.g. the revisions the
                // peer is pushing to us meanwhile) is not offered back, as in LiteCore.
                if !continuous { stopListing = true }
            }
            addTotal(wanted.count)
            for (change, known) in wanted {
                try await inFlight.waitForRoom(limit: maxInFlight, byteLimit: Self.maxRevisionBytesInFlight)
                let noConflicts: Bool
                if case .propose = mode { noConflicts = true } else { noConflicts = false }
                pushing.withLock { _ = $0.insert(change.documentID) }
                try sendRevision(change, knownAncestors: known, noConflicts: noConflicts,
                                 tracker: tracker, synced: synced, inFlight: inFlight, pushing: pushing)
            }
            try await flushPushProgress(tracker: tracker, synced: synced)
        }
    }

    /// Applies the document-ID list and the push filter.
    private func filtered(_ changes: [OutgoingChange]) throws -> [OutgoingChange] {
        guard let filter = options?.pushFilter else { return changes }
        return try changes.filter { change in
            let document = try change.listedDocument ?? database.core.document(id: change.documentID)
            let body = change.deleted ? nil : document?.current?.body
            return try filter(ReplicationDocumentInfo(documentID: change.documentID, revisionID: change.revisionID.string,
                                                  deleted: change.deleted, body: body))
        }
    }

    /// Offers changes to the peer; returns those it wants, with the ancestors it has.
    private func offer(_ changes: [OutgoingChange], mode: PushMode, tracker: Locked<SequenceTracker<UInt64>>,
                       synced: Locked<[(id: String, sequence: UInt64, revision: RevisionID)]>,
                       refused: Locked<Int>) async throws -> [(OutgoingChange, Set<RevisionID>)] {
        let body: [UInt8]
        let profile: String
        switch mode {
        case .propose:
            profile = "proposeChanges"
            body = ChangeListJSON.proposals(changes)
        case .changes:
            profile = "changes"
            body = ChangeListJSON.changes(changes)
        }
        let reply = try await sendRequest(BLIPMessage(urgent: true, compressed: true, properties: ["Profile": profile],
                                                      body: body), context: profile)
        if let maxHistory = reply.properties["maxHistory"].flatMap(Int.init), maxHistory > 0 {
            state.withLock { $0.peerMaxHistory = maxHistory }
        }
        if let blobs = reply.properties["blobs"] { state.withLock { $0.peerUnderstandsBlobs = Self.flag(blobs) } }
        let answers = (MessageJSON.decode(reply.body) as? [Any]) ?? []
        var wanted: [(OutgoingChange, Set<RevisionID>)] = []
        var ended: [ReplicatedDocument] = []
        var retries: [OutgoingChange] = []
        for (index, change) in changes.enumerated() {
            let answer: Any? = index < answers.count ? answers[index] : nil
            switch mode {
            case .propose:
                let status = (answer as? NSNumber)?.intValue ?? 0
                if status == 0 {
                    wanted.append((change, change.remoteAncestor.map { [$0] } ?? []))
                    continue
                }
                if status == 304 {
                    // The peer already has it (LiteCore marks it synced too): the next
                    // revision is proposed with it as the parent.
                    synced.withLock { $0.append((change.documentID, change.sequence, change.revisionID)) }
                }
                if status == 409 {
                    if let parent = try retryParent(afterRefusalOf: change) {
                        // Proposed again below with a revision whose reply was lost as the
                        // parent; its sequence stays open until that answer.
                        retries.append(OutgoingChange(documentID: change.documentID, revisionID: change.revisionID,
                                                      sequence: change.sequence, deleted: change.deleted,
                                                      bodySize: change.bodySize, remoteAncestor: parent,
                                                      listedDocument: change.listedDocument))
                        continue
                    }
                    refused.withLock { $0 += 1 }
                    ended.append(Self.conflictEnded(change))
                }
            case .changes:
                if let known = answer as? [Any] {
                    let ids = known.compactMap { ($0 as? String).flatMap { try? RevisionID(parsing: $0) } }  // allowed: a bad one only lengthens the history sent
                    wanted.append((change, Set(ids)))
                    continue
                }
                // The peer has it.
                synced.withLock { $0.append((change.documentID, change.sequence, change.revisionID)) }
            }
            tracker.withLock { $0.complete { $0 == change.sequence } }
        }
        if !ended.isEmpty && isActive { onEvent(.documentsEnded(ended)) }
        if !retries.isEmpty {
            // Each round uses up one remembered parent per document, so this ends.
            wanted += try await offer(retries, mode: mode, tracker: tracker, synced: synced, refused: refused)
        }
        return wanted
    }

    /// After a 409: a revision sent earlier whose reply was lost (the peer may have saved it)
    /// to propose `change` with as the parent instead, if the document still descends from one.
    private func retryParent(afterRefusalOf change: OutgoingChange) throws -> RevisionID? {
        guard let unconfirmed = options?.unconfirmedRevisions else { return nil }
        let candidates = unconfirmed.revisions(of: change.documentID)
        guard !candidates.isEmpty else { return nil }
        guard let parent = try database.retryParent(id: change.documentID, revisionID: change.revisionID,
                                                    remoteAncestor: change.remoteAncestor, candidates: candidates) else {
            return nil
        }
        unconfirmed.remove(documentID: change.documentID, revision: parent)
        return parent
    }

    private static func conflictEnded(_ change: OutgoingChange) -> ReplicatedDocument {
        ReplicatedDocument(documentID: change.documentID, revisionID: change.revisionID.string, isPush: true,
                           deleted: change.deleted,
                           error: ReplicationFailure(domain: .http, code: 409,
                                                     message: "the document conflicts with the server's revision"))
    }

    /// Sends one revision; its reply is handled on the connection's reader (recorded as
    /// synced, reported, counted out of `inFlight`), so no task waits for it. A reply that
    /// never comes because the connection ended ends the push through `inFlight`.
    private func sendRevision(_ change: OutgoingChange, knownAncestors: Set<RevisionID>, noConflicts: Bool,
                              tracker: Locked<SequenceTracker<UInt64>>,
                              synced: Locked<[(id: String, sequence: UInt64, revision: RevisionID)]>,
                              inFlight: RevisionsInFlight, pushing: Locked<Set<String>>) throws {
        let maxHistory = state.withLock { $0.peerMaxHistory }
        guard let revision = try database.revisionToSend(change, knownAncestors: knownAncestors, maxHistory: maxHistory) else {
            // Purged meanwhile: nothing to send.
            pushing.withLock { _ = $0.remove(change.documentID) }
            finishSending(documentID: change.documentID, sequence: change.sequence, revisionID: change.revisionID,
                          deleted: change.deleted, tracker: tracker,
                          failure: ReplicationFailure(domain: .database, code: 7, message: "the document is gone"))
            return
        }
        var properties: BLIPProperties = ["Profile": "rev", "id": change.documentID, "rev": revision.revisionID.string,
                                          "sequence": String(change.sequence)]
        if revision.deleted { properties["deleted"] = "1" }
        if noConflicts { properties["noconflicts"] = "1" }
        if !revision.ancestors.isEmpty { properties["history"] = revision.ancestors.map(\.string).joined(separator: ",") }
        // The handler keeps what it needs, not the listed document (its body stays only until sent).
        let size = revision.json.count
        let (documentID, listedRevision, listedSequence) = (change.documentID, change.revisionID, change.sequence)
        let (sentRevision, deleted) = (revision.revisionID, revision.deleted)
        inFlight.started(bytes: size)
        connection.sendRequest(BLIPMessage(compressed: true, properties: properties, body: revision.json)) { [self] result in
            var failure: ReplicationFailure?
            switch result {
            case .success:
                // The peer has what was sent: the listed revision, or, for a change listed
                // without its document, the current one, which may be newer (then its sequence
                // is not the listed one; 0 makes markPushed record the revision instead of the
                // synced flag). Not recording the newer one left the next proposal without a
                // parent: 409.
                let sequence = sentRevision == listedRevision ? listedSequence : 0
                synced.withLock { $0.append((documentID, sequence, sentRevision)) }
                options?.unconfirmedRevisions.remove(documentID: documentID)
            case .failure(let error):
                let mapped = (error as? BLIPError).map { ReplicationError(blip: $0, context: "sending \"\(documentID)\"") }
                if let mapped, mapped.domain == .http || mapped.domain == .blip {
                    failure = ReplicationFailure(mapped)
                } else {
                    // No answer (the connection ended): the peer may have saved it. Remembered, so
                    // that the next proposal refused for naming an older parent can name this one.
                    options?.unconfirmedRevisions.add(documentID: documentID, revision: sentRevision)
                    pushing.withLock { _ = $0.remove(documentID) }
                    inFlight.finished(bytes: size, failure: mapped ?? error)
                    return
                }
            }
            pushing.withLock { _ = $0.remove(documentID) }
            finishSending(documentID: documentID, sequence: listedSequence, revisionID: sentRevision, deleted: deleted,
                          tracker: tracker, failure: failure)
            inFlight.finished(bytes: size)
        }
    }

    /// Bytes of revision bodies sent or queued and not yet answered, at most (LiteCore 2.8's
    /// `kMaxRevBytesAwaitingReply`): bounds the memory big documents hold while in flight.
    static let maxRevisionBytesInFlight = 2 * 1024 * 1024

    /// A sent (or given up) revision is done: its sequence, the progress, the event.
    private func finishSending(documentID: String, sequence: UInt64, revisionID: RevisionID, deleted: Bool,
                               tracker: Locked<SequenceTracker<UInt64>>, failure: ReplicationFailure?) {
        tracker.withLock { $0.complete { $0 == sequence } }
        addCompleted(1)
        if isActive {
            onEvent(.documentsEnded([ReplicatedDocument(documentID: documentID, revisionID: revisionID.string,
                                                        isPush: true, deleted: deleted, error: failure)]))
        }
    }

    /// Records pushed documents as synced and (with `checkpoint`) the pushed sequence in the checkpoint.
    private func flushPushProgress(tracker: Locked<SequenceTracker<UInt64>>,
                                   synced: Locked<[(id: String, sequence: UInt64, revision: RevisionID)]>,
                                   checkpoint: Bool = true) async throws {
        guard isActive else { return }
        let documents = synced.withLock { list in
            defer { list.removeAll() }
            return list
        }
        if !documents.isEmpty, let remoteID {
            try await database.markPushed(documents, remoteID: remoteID)
        }
        if checkpoint, let safe = tracker.withLock({ $0.safeSequence }), let keeper = state.withLock({ $0.checkpointKeeper }) {
            await keeper.update(local: safe)
        }
    }

    /// Sends a request and maps BLIP failures to replication errors.
    func sendRequest(_ message: BLIPMessage, context: String) async throws -> BLIPMessage {
        try await ReplicationError.translatingBLIP(context) { try await connection.sendRequest(message) }
    }

    func sendNoReply(_ message: BLIPMessage) async throws {
        try await ReplicationError.translatingBLIP("sending \(message.profile ?? "a message")") {
            try await connection.sendNoReply(message)
        }
    }
}
