import BLIP
import BlobStore
import Fleece
import Foundation
import LiteDatabase

extension ReplicationSession {
    /// Dispatches one request from the peer. Quick answers are given in arrival order; work
    /// that waits on the peer (saving a revision whose blobs must be fetched) runs as its own
    /// task, so two sides pushing to each other cannot wait on each other's request loops.
    func handle(_ request: BLIPIncomingRequest) async {
        let profile = request.message.profile ?? ""
        if let refusal = refusal(of: profile) {
            onEvent(.refused("refused a \"\(profile)\" request from the peer: \(refusal)"))
            await request.respondError(domain: "HTTP", code: 403, message: refusal)
            return
        }
        do {
            switch profile {
            case "getCheckpoint": try await handleGetCheckpoint(request)
            case "setCheckpoint": try await handleSetCheckpoint(request)
            case "subChanges": try await handleSubChanges(request)
            case "changes": try await handleChanges(request)
            case "proposeChanges": try await handleProposeChanges(request)
            case "rev":
                if case .passive = role, answersRevisionsFromInserter {
                    receiveRevisionPassively(request)
                } else {
                    spawn(in: revisionLane) { [self] in await handleRevisionReportingErrors(request) }
                }
            case "norev": await handleNoRevision(request)
            case "getAttachment":
                spawn(in: blobReplyLane) { [self] in await handleGetAttachmentReportingErrors(request) }
            case "proveAttachment": try await handleProveAttachment(request)
            default:
                await request.respondError(domain: "BLIP", code: 404, message: "no handler for profile \"\(profile)\"")
            }
        } catch {
            await respondError(to: request, for: error)
        }
    }

    /// Answers a request that failed: a replication error with its own status and message,
    /// anything else as HTTP 500.
    func respondError(to request: BLIPIncomingRequest, for error: any Error) async {
        guard let error = error as? ReplicationError else {
            await request.respondError(domain: "HTTP", code: 500, message: "\(error)")
            return
        }
        await request.respondError(domain: error.replyDomain, code: error.code, message: error.message)
    }

    /// Why a request of `profile` is refused here (nil: it is served). A request for a
    /// direction this side does not replicate in is refused, as LiteCore 2.8's replicator
    /// forbids the handlers of a disabled direction: otherwise a hostile server could make a
    /// pull-only client push all its documents, or store revisions in a push-only one. A
    /// read-only listener neither takes revisions nor keeps a peer's checkpoint.
    func refusal(of profile: String) -> String? {
        switch role {
        case .active(let options):
            // An active replicator pushes on its own initiative; LiteCore's refuses a peer's
            // `subChanges` even when pushing.
            if profile == "subChanges" { return "this replicator does not serve subChanges" }
            if !options.pull, ["changes", "proposeChanges", "rev", "norev"].contains(profile) {
                return "this replicator does not pull"
            }
            if !options.push, ["getAttachment", "proveAttachment"].contains(profile) {
                return "this replicator does not push"
            }
        case .passive(let readOnly):
            if readOnly, ["changes", "proposeChanges", "rev", "norev", "setCheckpoint"].contains(profile) {
                return "this database is read-only"
            }
        }
        return nil
    }

    // MARK: Checkpoints kept for the peer

    func handleGetCheckpoint(_ request: BLIPIncomingRequest) async throws {
        guard let client = request.message.properties["client"], !client.isEmpty else {
            throw ReplicationError(.http, 400, "getCheckpoint needs a \"client\" property")
        }
        guard let stored = try CheckpointStore(core: database.core).peerCheckpoint(id: client) else {
            throw ReplicationError(.http, 404, "")
        }
        await request.respond(properties: ["rev": stored.revision], body: stored.body)
    }

    func handleSetCheckpoint(_ request: BLIPIncomingRequest) async throws {
        guard let client = request.message.properties["client"], !client.isEmpty else {
            throw ReplicationError(.http, 400, "setCheckpoint needs a \"client\" property")
        }
        guard MessageJSON.decode(request.message.body) is [String: Any] else {
            throw ReplicationError(.http, 400, "setCheckpoint's body is not a JSON object")
        }
        let revision = request.message.properties["rev"] ?? ""
        guard let next = try CheckpointStore(core: database.core)
            .savePeerCheckpoint(id: client, body: request.message.body, revision: revision) else {
            throw ReplicationError(.http, 409, "checkpoint \(client) changed since revision \"\(revision)\"")
        }
        await request.respond(properties: ["rev": next])
    }

    // MARK: The peer wants our changes

    func handleSubChanges(_ request: BLIPIncomingRequest) async throws {
        let properties = request.message.properties
        var since: UInt64 = 0
        if let text = properties["since"], !text.isEmpty {
            guard let value = MessageJSON.decode(Array(text.utf8)) as? NSNumber ?? UInt64(text).map({ NSNumber(value: $0) }) else {
                throw ReplicationError(.http, 400, "subChanges: \"since\" \(text) is not one of this database's sequences")
            }
            since = value.uint64Value
        }
        if properties["filter"] != nil && properties["filter"] != "sync_gateway/bychannel" {
            throw ReplicationError(.http, 501, "subChanges: filter \"\(properties["filter"] ?? "")\" is not supported")
        }
        var documentIDs: Set<String>?
        if !request.message.body.isEmpty, let body = MessageJSON.decode(request.message.body) as? [String: Any],
           let ids = body["docIDs"] as? [String] {
            documentIDs = Set(ids)
        }
        let continuous = Self.flag(properties["continuous"])
        let activeOnly = Self.flag(properties["activeOnly"])
        let batch = Int(properties["batch"] ?? "") ?? 200
        // One pusher per connection: each `subChanges` would otherwise start another task
        // listing the whole database.
        let alreadyPushing = state.withLock { state in
            defer { state.servingSubChanges = true }
            return state.servingSubChanges
        }
        if alreadyPushing {
            throw ReplicationError(.http, 409, "subChanges: this connection is already being sent changes")
        }
        await request.respond()
        spawn { [self, since, documentIDs] in
            do {
                try await push(mode: .changes(activeOnly: activeOnly), since: since, continuous: continuous,
                               batchSize: max(1, min(batch, 1000)), documentIDs: documentIDs)
            } catch is CancellationError {
            } catch {
                let failure = error as? ReplicationError
                    ?? ReplicationError(.database, 10, "pushing changes to the peer failed", underlying: error)
                if failure.domain != .webSocket { await fail(failure) }
            }
        }
    }

    // MARK: The peer offers its changes

    func handleChanges(_ request: BLIPIncomingRequest) async throws {
        guard let list = MessageJSON.decode(request.message.body) as? [Any] else {
            throw ReplicationError(.http, 400, "changes: the body is not a JSON array")
        }
        if list.isEmpty {
            // Caught up (one-shot pull ends once what was asked for has arrived).
            state.withLock { $0.pullCaughtUp = true }
            if case .active = role { checkPullFinished() }
            await request.respond()
            return
        }
        if case .passive(let readOnly) = role, readOnly {
            throw ReplicationError(.http, 403, "this database is read-only")
        }
        var answers: [Any] = []
        var wanted = 0
        var sequences: [(String, Bool)] = []
        var peerHas: [(id: String, sequence: UInt64, revision: RevisionID)] = []
        for item in list {
            guard let entry = item as? [Any], entry.count >= 3, let id = entry[1] as? String,
                  let revText = entry[2] as? String else {
                throw ReplicationError(.http, 400, "changes: an entry is not [sequence, docID, revID, …]")
            }
            let revisionID = try parseRevisionID(revText, documentID: id)
            let known = try database.knownAncestors(id: id, revisionID: revisionID)
            let sequence = MessageJSON.encode(entry[0])
            if let known {
                answers.append(known.map(\.string))
                wanted += 1
                sequences.append((sequence, false))
            } else {
                answers.append(0)
                sequences.append((sequence, true))
                peerHas.append((id, 0, revisionID))
            }
        }
        // The peer's current revision is one we have: record it as the peer's (forward only),
        // so our next proposal names it as the parent. A push whose reply was lost with the
        // connection otherwise left the document proposed without a parent and refused with
        // 409 at every later change (found by the soak test); LiteCore's puller likewise
        // learns the remote ancestor from what the peer lists.
        if case .active = role, let remoteID, !peerHas.isEmpty {
            try await database.markPushed(peerHas, remoteID: remoteID)
        }
        while let last = answers.last as? Int, last == 0 { answers.removeLast() }
        // "Caught up" stays said: later changes (continuous) just add revisions to wait for.
        // Only the active side tracks them (for its checkpoint): a passive side never completes
        // them, so it kept every change a peer ever offered for the connection's life.
        if isActive {
            state.withLock { state in
                for (sequence, done) in sequences { state.pullTracker.add(sequence, done: done) }
            }
        }
        addTotal(wanted)
        let maxHistory = (try? database.core.maxRevTreeDepth()) ?? 20  // allowed: LiteCore's default
        var properties: BLIPProperties = ["maxHistory": String(maxHistory), "blobs": "true"]
        // A puller says once that it takes deltas, as Couchbase Lite 2.8's does.
        if isActive, state.withLock({ state in defer { state.announcedDeltas = true }; return !state.announcedDeltas }) {
            properties["deltas"] = "true"
        }
        await request.respond(properties: properties, body: Array(MessageJSON.encode(answers).utf8),
                              compressed: true, urgent: true)
        if case .active = role { await pullProgressed() }
    }

    func handleProposeChanges(_ request: BLIPIncomingRequest) async throws {
        if case .passive(let readOnly) = role, readOnly {
            throw ReplicationError(.http, 403, "this database is read-only")
        }
        guard let list = MessageJSON.decode(request.message.body) as? [Any] else {
            throw ReplicationError(.http, 400, "proposeChanges: the body is not a JSON array")
        }
        var statuses: [Int] = []
        for item in list {
            guard let entry = item as? [Any], entry.count >= 2, let id = entry[0] as? String,
                  let revText = entry[1] as? String else {
                throw ReplicationError(.http, 400, "proposeChanges: an entry is not [docID, revID, …]")
            }
            let revisionID = try parseRevisionID(revText, documentID: id)
            var serverRevision: RevisionID?
            if entry.count >= 3, let text = entry[2] as? String, !text.isEmpty {
                serverRevision = try parseRevisionID(text, documentID: id)
            }
            statuses.append(try database.proposalStatus(id: id, revisionID: revisionID, serverRevisionID: serverRevision))
        }
        while statuses.last == 0 { statuses.removeLast() }
        let maxHistory = (try? database.core.maxRevTreeDepth()) ?? 20  // allowed: LiteCore's default
        await request.respond(properties: ["maxHistory": String(maxHistory), "blobs": "true"],
                              body: ChangeListJSON.integers(statuses), compressed: true, urgent: true)
    }

    // MARK: A revision arrives

    /// A revision pushed to this passive side: checked here, in the request loop, and when its
    /// blobs are all here, handed to the inserter and answered once its batch committed, with
    /// no task and no continuation per revision (a task per revision, its wake-ups and an
    /// awaited reply were a large part of a listener's work besides saving). Anything that waits
    /// on the peer (fetching blobs) or resolves a conflict runs as its own task, as before.
    func receiveRevisionPassively(_ request: BLIPIncomingRequest) {
        let received: ReceivedRevision
        do {
            received = try receivedRevision(request)
        } catch {
            let failure = Self.revisionFailure(error, request: request)
            request.respondErrorWithoutWaiting(domain: failure.domain == .http ? "HTTP" : "BLIP", code: failure.code,
                                               message: failure.message)
            return
        }
        guard received.missingBlobs.isEmpty else {
            spawn(in: revisionLane) { [self] in await handleRevisionReportingErrors(request, received: received) }
            return
        }
        inserter.submit(received.incoming, allowConflict: !received.noConflicts) { [self] result in
            switch result {
            case .success(.conflicted):
                spawn { [self] in
                    do {
                        try await resolveConflict(documentID: received.incoming.documentID,
                                                  pulled: received.incoming.history[0])
                        await request.respond()
                    } catch {
                        let failure = Self.revisionFailure(error, request: request)
                        await request.respondError(domain: failure.domain == .http ? "HTTP" : "BLIP",
                                                   code: failure.code, message: failure.message)
                    }
                }
            case .success:
                request.respondWithoutWaiting()
            case .failure(let error):
                let failure = Self.revisionFailure(error, request: request)
                request.respondErrorWithoutWaiting(domain: failure.domain == .http ? "HTTP" : "BLIP", code: failure.code,
                                                   message: failure.message)
            }
        }
    }

    /// A failure to save a received revision as the error the peer is answered with.
    static func revisionFailure(_ error: any Error, request: BLIPIncomingRequest) -> ReplicationError {
        if let error = error as? ReplicationError { return error }
        let properties = request.message.properties
        return ReplicationError(.database, (error as? DatabaseError)?.code.rawValue ?? 10,
                                "saving revision \(properties["rev"] ?? "") of \"\(properties["id"] ?? "")\" failed",
                                underlying: error)
    }

    /// Whether saving a received revision failed for a reason that may pass (the peer or the
    /// network failed, the disk was full or busy), rather than a refusal of the revision itself.
    static func isTransientFailure(_ error: any Error) -> Bool {
        switch error {
        case is CancellationError: return true
        case let error as BlobStoreError: return error.code == .io || error.code == .closed
        case let error as DatabaseError: return !RevisionInserter.isRefusal(error)
        case let error as ReplicationError:
            if error.isTransient { return true }
            // Our own storage failing under a replication error (a blob that cannot be written).
            if error.domain == .database, let underlying = error.underlying { return isTransientFailure(underlying) }
            return false
        default: return false
        }
    }

    /// Saves a received revision (checked already when `received` is given) and answers it;
    /// on the active side, reports it.
    func handleRevisionReportingErrors(_ request: BLIPIncomingRequest, received: ReceivedRevision? = nil) async {
        let properties = request.message.properties
        let id = properties["id"] ?? ""
        let revText = properties["rev"] ?? ""
        do {
            try await save(received ?? receivedRevision(request), request: request)
        } catch {
            let replicationError = Self.revisionFailure(error, request: request)
            await request.respondError(domain: replicationError.domain == .http ? "HTTP" : "BLIP",
                                       code: replicationError.code, message: replicationError.message)
            if isActive {
                onEvent(.documentsEnded([ReplicatedDocument(documentID: id, revisionID: revText, isPush: false,
                                                            deleted: Self.flag(properties["deleted"]),
                                                            error: ReplicationFailure(replicationError))]))
                // As LiteCore's puller: a revision that failed on a transient error is done
                // for this pass but the checkpoint stays before it, so the next replication
                // asks for it again; only a refusal for good lets the checkpoint pass it.
                await completePulled(sequence: properties["sequence"], saved: !Self.isTransientFailure(error))
            }
        }
    }

    /// Checks a `rev` request and converts its body (a delta applied), and lists the blobs it
    /// names that are not here; waits on nothing.
    func receivedRevision(_ request: BLIPIncomingRequest) throws -> ReceivedRevision {
        if case .passive(let readOnly) = role, readOnly {
            throw ReplicationError(.http, 403, "this database is read-only")
        }
        let properties = request.message.properties
        guard let id = properties["id"], !id.isEmpty, let revText = properties["rev"] else {
            throw ReplicationError(.http, 400, "rev needs \"id\" and \"rev\" properties")
        }
        try DatabaseCore.validate(documentID: id)

        var history = [try parseRevisionID(revText, documentID: id)]
        if let text = properties["history"], !text.isEmpty {
            for part in text.split(separator: ",") {
                history.append(try parseRevisionID(part.trimmingCharacters(in: .whitespaces), documentID: id))
            }
        }
        for (older, newer) in zip(history.dropFirst(), history) where older.generation >= newer.generation {
            throw ReplicationError(.http, 400, "rev \(revText) of \"\(id)\": its history is not in descending generations")
        }
        let deleted = Self.flag(properties["deleted"])
        var json = request.message.body
        if json.isEmpty { json = Array("{}".utf8) }
        if let deltaSource = properties["deltaSrc"] {
            json = try applyDelta(json, base: parseRevisionID(deltaSource, documentID: id), documentID: id)
        }
        guard json.first(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }) == UInt8(ascii: "{") else {
            throw ReplicationError(.http, 400, "rev \(revText) of \"\(id)\": the body is not a JSON object")
        }
        // `_removed: true` means the peer withdrew access (checked only when the key is there).
        let removed = MessageJSON.contains(json, "\"_removed\"")
            && (MessageJSON.decode(json) as? [String: Any])?["_removed"] as? Bool == true
        if removed && !isActive {
            // Sync Gateway's channel-removal notice, meaningful only to a pulling client: a
            // peer pushing to us cannot have a document purged here (Replication-32).
            let message = "rev \(revText) of \"\(id)\" is a \"_removed\" notice, which only a server sends to a "
                + "pulling client; nothing was purged or saved"
            onEvent(.refused(message))
            throw ReplicationError(.http, 403, message)
        }
        let incoming = IncomingRevision(documentID: id, history: history, deleted: deleted, json: json, removed: removed)
        let missingBlobs = try database.missingBlobs(inJSON: json)
        for blob in missingBlobs {
            if let length = blob.length, length < 0 {
                throw ReplicationError(.http, 400, "rev \(revText) of \"\(id)\": blob \(blob.key.string) declares a negative length")
            }
            if let length = blob.length, length > limits.maxBlobSize {
                let message = "rev \(revText) of \"\(id)\": blob \(blob.key.string) declares \(length) bytes, more than the "
                    + "\(limits.maxBlobSize) accepted from a peer; the revision was not saved"
                onEvent(.refused(message))
                throw ReplicationError(.http, 413, message)
            }
        }
        return ReceivedRevision(incoming: incoming, missingBlobs: missingBlobs,
                                noConflicts: Self.flag(properties["noconflicts"]) || !isActive)
    }

    /// Fetches the blobs a received revision lacks, saves it, answers the peer and, on the
    /// active side, reports it.
    func save(_ received: ReceivedRevision, request: BLIPIncomingRequest) async throws {
        let properties = request.message.properties
        let incoming = received.incoming
        let id = incoming.documentID
        let revText = properties["rev"] ?? ""
        let (history, deleted, removed) = (incoming.history, incoming.deleted, incoming.removed)
        for blob in received.missingBlobs {
            try await fetchBlob(blob.key, length: blob.length, contentType: blob.contentType, documentID: id)
        }
        let outcome = try await inserter.insert(incoming, allowConflict: !received.noConflicts)
        if outcome == .conflicted { try await resolveConflict(documentID: id, pulled: history[0]) }
        await request.respond()
        if isActive {
            onEvent(.documentsEnded([ReplicatedDocument(documentID: id, revisionID: revText, isPush: false,
                                                        deleted: deleted, accessRemoved: removed,
                                                        error: outcome == .rejectedByFilter
                                                            ? ReplicationFailure(domain: .database, code: 0,
                                                                                 message: "rejected by the pull filter")
                                                            : nil)]))
            await completePulled(sequence: properties["sequence"])
        }
    }

    /// A `rev` body sent as a JSON delta from `base` (a revision we said we have): the full
    /// body as JSON.
    func applyDelta(_ delta: [UInt8], base: RevisionID, documentID id: String) throws -> [UInt8] {
        let core = database.core
        guard let document = try core.document(id: id), let revision = document.tree.revision(base),
              let body = revision.body else {
            throw ReplicationError(.http, 404, "rev of \"\(id)\": the delta's base revision \(base) is not here")
        }
        do {
            let baseDocument = try FleeceDocument(bytes: body.isEmpty ? StoredDocument.emptyDictionary : body,
                                                  sharedKeys: core.sharedKeys)
            let merged = try JSONDelta.apply(String(decoding: delta, as: UTF8.self), to: baseDocument.root)
            return Array(try JSONConverter.json(fromFleece: merged).utf8)
        } catch {
            throw ReplicationError(.http, 400, "rev of \"\(id)\": the delta from \(base) cannot be applied", underlying: error)
        }
    }

    func handleNoRevision(_ request: BLIPIncomingRequest) async {
        guard isActive else { return }
        let properties = request.message.properties
        onEvent(.documentsEnded([ReplicatedDocument(
            documentID: properties["id"] ?? "", revisionID: properties["rev"] ?? "", isPush: false, deleted: false,
            error: ReplicationFailure(domain: .http, code: Int(properties["error"] ?? "") ?? 404,
                                      message: properties["reason"] ?? "the peer could not send the revision"))]))
        await completePulled(sequence: properties["sequence"])
    }

    /// Asks the peer for a blob and stores it after checking its digest. The reply's frames go
    /// straight into a blob writer as they arrive, so a blob of any size costs a frame of
    /// memory; a body that is too long, or whose digest or length is wrong, stores nothing.
    func fetchBlob(_ key: BlobKey, length: Int64?, contentType: String?, documentID: String) async throws {
        var properties: BLIPProperties = ["Profile": "getAttachment", "digest": key.string]
        if Self.isCompressible(contentType: contentType) { properties["compress"] = "true" }
        let sink = IncomingBlob(writer: try database.makeBlobWriter(), key: key, expectedLength: length,
                                maximumLength: limits.maxBlobSize)
        do {
            _ = try await ReplicationError.translatingBLIP("fetching blob \(key.string) of \"\(documentID)\"") {
                try await connection.sendRequest(BLIPMessage(properties: properties), replyBody: { try sink.append($0) })
            }
        } catch {
            sink.abort()
            throw error
        }
        try database.finishBlob(sink.takeWriter(), key: key, expectedLength: length)
    }

    func handleGetAttachmentReportingErrors(_ request: BLIPIncomingRequest) async {
        do {
            guard let digest = request.message.properties["digest"] else {
                throw ReplicationError(.http, 400, "getAttachment needs a \"digest\" property")
            }
            let reader = try database.blobReader(digest: digest)
            await request.respond(bodySource: BlobBodySource(reader: reader),
                                  compressed: Self.flag(request.message.properties["compress"]))
        } catch {
            await respondError(to: request, for: error)
        }
    }

    func handleProveAttachment(_ request: BLIPIncomingRequest) async throws {
        guard let digest = request.message.properties["digest"] else {
            throw ReplicationError(.http, 400, "proveAttachment needs a \"digest\" property")
        }
        let proof = try database.proof(digest: digest, nonce: request.message.body)
        await request.respond(body: Array(proof.utf8))
    }

    // MARK: Helpers

    func parseRevisionID(_ text: some StringProtocol, documentID: String) throws -> RevisionID {
        do {
            return try RevisionID(parsing: String(text))
        } catch {
            throw ReplicationError(.http, 400, "\"\(text.prefix(80))\" of \"\(documentID)\" is not a revision ID")
        }
    }

    /// BLIP booleans: "true"/"YES"/nonzero.
    static func flag(_ value: String?) -> Bool {
        guard let value else { return false }
        if value == "true" || value == "YES" { return true }
        return (Int(value) ?? 0) != 0
    }

    /// LiteCore's rule for asking a blob compressed: not when the type says it already is.
    static func isCompressible(contentType: String?) -> Bool {
        guard let type = contentType?.lowercased(), !type.isEmpty else { return false }
        for prefix in ["image/", "audio/", "video/"] where type.hasPrefix(prefix) { return false }
        for marker in ["zip", "gzip", "compressed", "x-7z", "x-rar", "x-bzip"] where type.contains(marker) { return false }
        return true
    }
}
