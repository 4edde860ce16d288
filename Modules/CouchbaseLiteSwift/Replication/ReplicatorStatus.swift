extension Replicator {
    /// What a replicator is doing.
    public enum ActivityLevel: UInt8, Sendable {
        /// Not running (never started, stopped, finished, or failed).
        case stopped
        /// Waiting to retry after a transient error.
        case offline
        /// Opening the connection.
        case connecting
        /// Caught up; a continuous replicator waits for changes.
        case idle
        /// Replicating.
        case busy
    }

    /// How much work is done: documents completed out of those known so far.
    public struct Progress: Sendable, Equatable {
        /// Documents finished.
        public let completed: UInt64
        /// Documents known to need replicating (grows as changes are listed).
        public let total: UInt64
    }

    /// A replicator's state.
    public struct Status: Sendable {
        /// What it is doing.
        public let activity: ActivityLevel
        /// How far it got.
        public let progress: Progress
        /// Why it stopped or is offline (nil: no error).
        public let error: (any Error)?
    }
}

/// A replicator's status changed.
public struct ReplicatorChange: Sendable {
    /// The replicator.
    public let replicator: Replicator
    /// Its new status.
    public let status: Replicator.Status
}

/// Documents a replicator finished sending or receiving.
public struct DocumentReplication: Sendable {
    /// The replicator.
    public let replicator: Replicator
    /// True for documents pushed, false for documents pulled.
    public let isPush: Bool
    /// The documents.
    public let documents: [ReplicatedDocument]
}

/// One document a replicator finished with.
public struct ReplicatedDocument: Sendable {
    /// Its ID.
    public let id: String
    /// Deleted, access removed.
    public let flags: DocumentFlags
    /// Why it failed (nil: it was replicated).
    public let error: (any Error)?
}
