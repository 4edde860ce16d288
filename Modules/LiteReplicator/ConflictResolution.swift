import LiteDatabase

/// A conflict the puller found: the local current revision and the pulled one.
package struct ReplicationConflict: Sendable {
    package let documentID: String
    package let localRevision: RevisionID
    /// Nil when the local side is a deletion.
    package let localBody: [UInt8]?
    package let remoteRevision: RevisionID
    /// Nil when the remote side is a deletion.
    package let remoteBody: [UInt8]?
}

/// What a conflict resolver decided.
package enum ConflictDecision: Sendable {
    /// Keep the pulled revision as it is.
    case useRemote
    /// Keep the local content (saved as a new revision on top of the remote one).
    case useLocal
    /// Save this JSON body on top of the remote revision (encoded with the database's shared
    /// keys inside the write that saves it).
    case merged(json: [UInt8])
    /// Resolve to a deletion.
    case delete
}

/// Decides a conflict (the public `ConflictResolver`, or the default rule).
package typealias ConflictResolverFunction = @Sendable (ReplicationConflict) async throws -> ConflictDecision

extension ReplicationConflict {
    /// Couchbase Lite 2.x's default rule: a deletion wins; otherwise the revision with the
    /// higher generation, then the higher revision ID.
    package var defaultDecision: ConflictDecision {
        if remoteBody == nil { return .useRemote }
        if localBody == nil { return .delete }
        if localRevision.generation != remoteRevision.generation {
            return localRevision.generation > remoteRevision.generation ? .useLocal : .useRemote
        }
        return remoteRevision < localRevision ? .useLocal : .useRemote
    }
}
