/// Which way a replicator sends documents.
public enum ReplicatorType: Sendable {
    /// Both ways.
    case pushAndPull
    /// Local changes to the target only.
    case push
    /// The target's changes to the local database only.
    case pull
}
