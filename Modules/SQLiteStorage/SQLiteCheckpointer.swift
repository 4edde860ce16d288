import CSQLite
import Dispatch
import LiteSupport

/// Copies committed pages from the WAL back into the database file on a queue of its own
/// (Storage-15), so that a commit does not wait for the checkpoint and its `fsync`: SQLite's own
/// automatic checkpoint runs inside the commit that crosses 1,000 pages of WAL.
///
/// The writer connection reports the WAL's length after each commit (`sqlite3_wal_hook`, which
/// replaces SQLite's automatic checkpoint). Past ``backgroundThreshold`` frames a passive
/// checkpoint is queued on a connection of the checkpointer's own; past ``writerThreshold``
/// (the queue has fallen behind) the writer waits for the queue and checkpoints itself, as
/// SQLite would, so the WAL stays bounded. A passive checkpoint never waits for readers or the writer, and a crash in
/// the middle of one loses nothing: the WAL stays the record until the checkpoint completes.
final class SQLiteCheckpointer: Sendable {
    /// SQLite's own automatic checkpoint threshold, in pages.
    static let backgroundThreshold: Int32 = 1_000
    static let writerThreshold: Int32 = 4_000

    private let path: String
    private let encryption: SQLiteEncryption?
    private let queue: DispatchQueue
    // Used only on `queue`, so its lock is never contended.
    private let connection = Locked<SQLiteConnection?>(nil)
    private let state = Locked<(queued: Bool, closed: Bool)>((false, false))

    init(path: String, encryption: SQLiteEncryption? = nil) {
        self.path = path
        self.encryption = encryption
        queue = DispatchQueue(label: "SQLite checkpoints: \(path)")
    }

    /// Makes `writer` report to this checkpointer after each commit.
    func attach(to writer: SQLiteConnection) {
        sqlite3_wal_hook(writer.handle, sqliteWALHook, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Stops `writer` reporting (before this checkpointer goes away).
    func detach(from writer: SQLiteConnection) {
        sqlite3_wal_hook(writer.handle, nil, nil)
    }

    /// Called on the writer's thread after a commit left `frames` pages in the WAL.
    fileprivate func committed(frames: Int32, writer: OpaquePointer?) {
        if frames >= Self.writerThreshold {
            // A queued checkpoint still copying would make this one give up at once (one
            // checkpointer at a time), and a writer that keeps outrunning the queue would grow
            // the WAL without end: wait for it, then copy the rest, so the next transaction can
            // start the WAL over.
            waitUntilIdle()
            // allowed: a checkpoint that cannot finish now leaves the pages in the WAL, where they are safe
            sqlite3_wal_checkpoint_v2(writer, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
            return
        }
        guard frames >= Self.backgroundThreshold else { return }
        let queueIt = state.withLock { state -> Bool in
            guard !state.queued, !state.closed else { return false }
            state.queued = true
            return true
        }
        if queueIt { queue.async { self.checkpoint() } }
    }

    private func checkpoint() {
        // Cleared first: a commit during this checkpoint queues the next one.
        let closed = state.withLock { state -> Bool in
            state.queued = false
            return state.closed
        }
        guard !closed else { return }
        let connection = connection.withLock { connection -> SQLiteConnection? in
            if connection == nil {
                // A connection learns the file is in WAL mode at its first read; until then a
                // checkpoint does nothing.
                connection = try? {   // allowed: without it, the writer's own threshold still checkpoints
                    let connection = try SQLiteConnection(path: path, flags: SQLITE_OPEN_READWRITE, encryption: encryption)
                    try connection.execute("SELECT count(*) FROM sqlite_master")
                    return connection
                }()
            }
            return connection
        }
        guard let connection else { return }
        // allowed: as above, pages a passive checkpoint leaves behind stay safe in the WAL
        sqlite3_wal_checkpoint_v2(connection.handle, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
    }

    /// Waits for a queued checkpoint to finish (tests; closing).
    func waitUntilIdle() {
        queue.sync {}
    }

    /// Stops queueing, waits for a running checkpoint and closes the connection.
    func close() {
        state.withLock { $0.closed = true }
        queue.sync {
            connection.withLock { connection in
                connection?.close()
                connection = nil
            }
        }
    }
}

/// The C callback SQLite calls after each commit on a writer a checkpointer is attached to.
private func sqliteWALHook(_ context: UnsafeMutableRawPointer?, _ db: OpaquePointer?,
                           _ name: UnsafePointer<CChar>?, _ frames: Int32) -> Int32 {
    guard let context else { return SQLITE_OK }
    Unmanaged<SQLiteCheckpointer>.fromOpaque(context).takeUnretainedValue().committed(frames: frames, writer: db)
    return SQLITE_OK
}
