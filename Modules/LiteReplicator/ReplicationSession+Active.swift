import BLIP
import Foundation
import LiteDatabase
import LiteSupport

extension ReplicationSession {
    /// Runs the active side: agrees on the checkpoint, then pulls (`subChanges`) and pushes
    /// (`proposeChanges`) at once. One-shot: returns when both are done and the checkpoint is
    /// saved, then closes the connection. Continuous: runs until the task is cancelled or the
    /// connection fails. Throws the error that stopped it.
    package func runActive() async throws {
        guard let options else {
            throw ReplicationError(.database, 9, "runActive() needs an active session")
        }
        connection.start()
        let server = Task(executorPreference: ThreadPoolExecutor.replication) { [self] in await serve() }
        defer { server.cancel() }
        do {
            let store = CheckpointStore(core: database.core)
            let id = try store.checkpointID(options: options)
            if options.resetCheckpoint { try store.deleteLocalCheckpoint(id: id) }
            let keeper = try await CheckpointKeeper.open(id: id, store: store, connection: connection,
                                                         reset: options.resetCheckpoint,
                                                         saveDelay: options.checkpointSaveDelay)
            state.withLock { $0.checkpointKeeper = keeper }
            let start = await keeper.checkpoint
            // As LiteCore: only a first pull into an empty database may skip deletions.
            let emptyDatabase = try database.core.lastSequence() == 0
            let hadLocalCheckpoint = await keeper.hadLocalCheckpoint
            let skipDeleted = emptyDatabase && (options.resetCheckpoint || !hadLocalCheckpoint)
            try await withThrowingTaskGroup(of: Void.self) { group in
                if options.pull {
                    group.addTask { [self] in try await pull(from: start.remote, skipDeleted: skipDeleted, options: options) }
                }
                if options.push {
                    group.addTask { [self] in
                        try await push(mode: .propose, since: start.local, continuous: options.continuous,
                                       batchSize: options.changesBatchSize,
                                       documentIDs: options.documentIDs.map(Set.init))
                    }
                }
                try await group.waitForAll()
            }
            await keeper.flush()
            if let failure = state.withLock({ $0.failure }) { throw failure }
            if let failure = await keeper.failure() { throw failure }
            await connection.close(code: 1000, reason: "")
        } catch {
            let failure = state.withLock { $0.failure }
            if error is CancellationError {
                await connection.close(code: 1000, reason: "")
                throw error
            }
            await connection.close(code: 1000, reason: "")
            throw failure ?? error
        }
        _ = await server.value
    }

    /// Asks the peer for its changes and waits (one-shot) until they are all saved.
    private func pull(from since: String?, skipDeleted: Bool, options: ReplicationOptions) async throws {
        var properties: BLIPProperties = ["Profile": "subChanges"]
        if let since { properties["since"] = since }
        if options.continuous { properties["continuous"] = "true" }
        properties["batch"] = String(options.changesBatchSize)
        if skipDeleted { properties["activeOnly"] = "true" }
        if let channels = options.channels, !channels.isEmpty {
            properties["filter"] = "sync_gateway/bychannel"
            properties["channels"] = channels.joined(separator: ",")
        }
        var body: [UInt8] = []
        if let ids = options.documentIDs, !ids.isEmpty {
            body = Array(MessageJSON.encode(["docIDs": ids]).utf8)
        }
        _ = try await sendRequest(BLIPMessage(properties: properties, body: body), context: "subChanges")
        if options.continuous {
            // Runs until cancelled or the connection ends.
            _ = await connection.waitUntilClosed()
            if let failure = state.withLock({ $0.failure }) { throw failure }
            try Task.checkCancellation()
            throw ReplicationError(.webSocket, 1006, "the connection to the peer ended")
        }
        await waitForPullToFinish()
        if let failure = state.withLock({ $0.failure }) { throw failure }
        if !pullFinished {
            throw ReplicationError(.webSocket, 1006, "the connection to the peer ended before the pull finished")
        }
    }
}
