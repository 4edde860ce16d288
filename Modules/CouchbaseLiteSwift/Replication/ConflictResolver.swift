/// A conflict between the local document and the one pulled from the server.
public struct Conflict {
    /// The document's ID.
    public let documentID: String
    /// The local revision (nil: the local side is a deletion).
    public let localDocument: Document?
    /// The pulled revision (nil: the server's side is a deletion).
    public let remoteDocument: Document?
}

/// Decides a replication conflict: return the document to keep (the local one, the remote
/// one, or a new merged `MutableDocument`), or nil to delete the document.
///
/// ```swift
/// struct LocalWins: ConflictResolverProtocol {
///     func resolve(conflict: Conflict) -> Document? { conflict.localDocument }
/// }
/// ```
public protocol ConflictResolverProtocol: Sendable {
    /// The resolution; called on a replicator queue, once per conflict.
    func resolve(conflict: Conflict) -> Document?
}

/// The resolver a replicator uses unless configured otherwise.
public enum ConflictResolver {
    /// Couchbase Lite's default rule: a deletion wins; otherwise the revision with more
    /// changes (higher generation) wins, then the higher revision ID.
    public static let `default`: any ConflictResolverProtocol = DefaultConflictResolver()
}

struct DefaultConflictResolver: ConflictResolverProtocol {
    func resolve(conflict: Conflict) -> Document? {
        // Never called: the replicator applies the default rule itself, without building
        // documents; kept so `ConflictResolver.default` can be passed explicitly.
        guard let local = conflict.localDocument, let remote = conflict.remoteDocument,
              let localRevision = local.stored?.revisionID, let remoteRevision = remote.stored?.revisionID else { return nil }
        return remoteRevision < localRevision ? local : remote
    }
}
