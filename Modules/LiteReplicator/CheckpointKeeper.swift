import BLIP
import Foundation
import LiteDatabase
import LiteSupport

/// Keeps an active replication's checkpoint: the copy on the peer (`setCheckpoint`, with the
/// peer's revision) and the local copy, saved after the peer's, one save at a time.
///
/// As LiteCore 2.8 (`kDefaultCheckpointSaveDelay`), progress is saved about five seconds after
/// the first unsaved change, and at the end: a short replication sends one `setCheckpoint`.
package actor CheckpointKeeper {
    /// How long progress may stay unsaved.
    /// How long after a change the autosave waits.
    private let saveDelay: Duration
    private var autosave: Task<Void, Never>?
    let id: String
    let store: CheckpointStore
    let connection: BLIPConnection
    private(set) var checkpoint: ReplicationCheckpoint
    private var remoteRevision: String
    private var dirty = false
    private var saving = false
    /// Callers waiting for the running save loop (which saves again if they made it dirty).
    private var saveWaiters: [CheckedContinuation<Void, Never>] = []
    private var lastError: ReplicationError?
    /// Whether a local copy of the checkpoint was found when the replication started.
    private(set) var hadLocalCheckpoint = false

    init(id: String, store: CheckpointStore, connection: BLIPConnection, checkpoint: ReplicationCheckpoint,
         remoteRevision: String, saveDelay: Duration = .seconds(5)) {
        self.saveDelay = saveDelay
        self.id = id
        self.store = store
        self.connection = connection
        self.checkpoint = checkpoint
        self.remoteRevision = remoteRevision
    }

    /// Reads both copies and agrees on where to start: where they agree, that; where they
    /// differ, the start (the peer lost or reset its copy, or ours is from another life).
    static func open(id: String, store: CheckpointStore, connection: BLIPConnection,
                     reset: Bool, saveDelay: Duration = .seconds(5)) async throws -> CheckpointKeeper {
        let local = reset ? nil : try store.localCheckpoint(id: id)
        var remote: ReplicationCheckpoint?
        var remoteRevision = ""
        let reply = try await ReplicationError.translatingBLIP("reading checkpoint \(id) from the peer") { () -> BLIPMessage? in
            do {
                return try await connection.sendRequest(BLIPMessage(properties: ["Profile": "getCheckpoint", "client": id]))
            } catch BLIPError.remote(_, 404, _) {
                return nil
            }
        }
        if let reply {
            remote = ReplicationCheckpoint(json: reply.body)
            remoteRevision = reply.properties["rev"] ?? ""
        }
        var start = ReplicationCheckpoint()
        if let local, let remote {
            start.local = local.local == remote.local ? local.local : 0
            start.remote = local.remote == remote.remote ? local.remote : nil
        }
        let keeper = CheckpointKeeper(id: id, store: store, connection: connection, checkpoint: start,
                                      remoteRevision: remoteRevision, saveDelay: saveDelay)
        await keeper.setHadLocalCheckpoint(local != nil)
        return keeper
    }

    private func setHadLocalCheckpoint(_ value: Bool) { hadLocalCheckpoint = value }

    /// Pushed everything up to `sequence`.
    func update(local sequence: UInt64) async {
        guard sequence > checkpoint.local else { return }
        checkpoint.local = sequence
        await markDirty()
    }

    /// Pulled everything up to the peer's `sequence` (JSON text).
    func update(remote sequence: String) async {
        guard sequence != checkpoint.remote else { return }
        checkpoint.remote = sequence
        await markDirty()
    }

    private func markDirty() async {
        dirty = true
        guard autosave == nil else { return }
        let delay = saveDelay
        autosave = Task(executorPreference: ThreadPoolExecutor.replication) { [weak self] in
            try? await Task.sleep(for: delay)  // allowed: cancelled when a final save comes first
            guard !Task.isCancelled else { return }
            await self?.autosaveFired()
        }
    }

    private func autosaveFired() async {
        autosave = nil
        await save()
    }

    /// Saves now (the end of a replication) and stops the pending autosave.
    func flush() async {
        autosave?.cancel()
        autosave = nil
        await save()
    }

    /// Saves until nothing is dirty; a call during a running save waits for that loop, which
    /// saves again for it (so the final save of a replication is never skipped).
    func save() async {
        guard !saving else {
            await withCheckedContinuation { saveWaiters.append($0) }
            return
        }
        saving = true
        defer {
            saving = false
            let waiters = saveWaiters
            saveWaiters.removeAll()
            for waiter in waiters { waiter.resume() }
        }
        while dirty {
            dirty = false
            let snapshot = checkpoint
            let body = snapshot.json()
            do {
                let reply = try await connection.sendRequest(BLIPMessage(
                    properties: ["Profile": "setCheckpoint", "client": id, "rev": remoteRevision], body: body))
                remoteRevision = reply.properties["rev"] ?? remoteRevision
                try store.saveLocalCheckpoint(snapshot, id: id)
            } catch BLIPError.remote(_, 403, _) {
                // A read-only listener keeps no checkpoints (Replication-33): the pull still
                // completes; the next one starts over, as with a peer that lost its copy.
                return
            } catch let error as BLIPError {
                lastError = ReplicationError(blip: error, context: "saving checkpoint \(id) on the peer")
                if case .remote(_, 409, _) = error, let fresh = try? await connection.sendRequest(  // allowed: else the 409 stands
                    BLIPMessage(properties: ["Profile": "getCheckpoint", "client": id])) {
                    // Someone else moved the peer's copy: take its revision, write ours over it.
                    remoteRevision = fresh.properties["rev"] ?? remoteRevision
                    dirty = true
                    continue
                }
                return
            } catch {
                lastError = ReplicationError(.database, 10, "saving checkpoint \(id) locally", underlying: error)
                return
            }
        }
    }

    /// The error of the last failed save, if any.
    func failure() -> ReplicationError? { lastError }
}
