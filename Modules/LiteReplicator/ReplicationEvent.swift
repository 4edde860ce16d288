/// What a replication reports while it runs (the public `Replicator` turns these into status
/// and document-replication notifications).
package enum ReplicationEvent: Sendable {
    /// Documents finished replicating (pushed, pulled, skipped with an error).
    case documentsEnded([ReplicatedDocument])
    /// Work done and known so far (changes counted as they are listed).
    case progress(completed: UInt64, total: UInt64)
    /// Everything known has been replicated; a continuous replication waits for more.
    case caughtUp
    /// The peer sent something this session refused for safety (a request for a direction
    /// that is not enabled, a `_removed` notice pushed to a listener, an oversized blob): a
    /// line for the log.
    case refused(String)
}

/// One document that finished replicating in one direction.
package struct ReplicatedDocument: Sendable, Equatable {
    package let documentID: String
    package let revisionID: String
    package let isPush: Bool
    package let deleted: Bool
    /// Access to it was removed on the server (pulled `_removed`).
    package let accessRemoved: Bool
    /// Why it failed (nil: it went through).
    package let error: ReplicationFailure?

    package init(documentID: String, revisionID: String, isPush: Bool, deleted: Bool,
                 accessRemoved: Bool = false, error: ReplicationFailure? = nil) {
        self.documentID = documentID
        self.revisionID = revisionID
        self.isPush = isPush
        self.deleted = deleted
        self.accessRemoved = accessRemoved
        self.error = error
    }
}

/// A per-document failure, comparable for tests.
package struct ReplicationFailure: Sendable, Equatable, CustomStringConvertible {
    package let domain: ReplicationError.Domain
    package let code: Int
    package let message: String

    package init(domain: ReplicationError.Domain, code: Int, message: String) {
        self.domain = domain
        self.code = code
        self.message = message
    }

    package init(_ error: ReplicationError) {
        self.init(domain: error.domain, code: error.code, message: error.message)
    }

    package var description: String { "\(message) (\(domain.rawValue) \(code))" }
}
