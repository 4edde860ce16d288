import Foundation
#if canImport(Security)
import Security
#endif

/// What a ``Replicator`` replicates, with whom and how. A replicator copies its
/// configuration when it is made; later changes to this object do not affect it.
///
/// ```swift
/// let config = ReplicatorConfiguration(database: db, target: URLEndpoint(url: serverURL))
/// config.replicatorType = .pushAndPull
/// config.continuous = true
/// config.authenticator = BasicAuthenticator(username: "john", password: "pass")
/// ```
public final class ReplicatorConfiguration: @unchecked Sendable {
    // @unchecked: a plain settings object, like the 2.x class; the replicator takes a copy.

    /// The local database.
    public let database: Database
    /// The other side.
    public let target: any Endpoint
    /// Push, pull or both (default both).
    public var replicatorType: ReplicatorType = .pushAndPull
    /// Keep replicating as changes happen (default: stop when caught up).
    public var continuous = false
    /// Credentials for the server.
    public var authenticator: (any Authenticator)?
    /// The server's certificate to accept, and only it, instead of checking the chain; make it
    /// from DER bytes with `SecCertificateCreateWithData(nil, data)` (on Linux, this module's).
    public var pinnedServerCertificate: SecCertificate?
    /// Accept a self-signed server certificate without pinning it (for development).
    public var acceptOnlySelfSignedServerCertificate = false
    /// Extra HTTP headers for the connection request.
    public var headers: [String: String]?
    /// Sync Gateway channels to pull (nil: every channel the user may read).
    public var channels: [String]?
    /// Only these documents (nil: all).
    public var documentIDs: [String]?
    /// Decides which local revisions are pushed; return false to skip one.
    public var pushFilter: (@Sendable (Document, DocumentFlags) -> Bool)?
    /// Decides which pulled revisions are saved; return false to skip one.
    public var pullFilter: (@Sendable (Document, DocumentFlags) -> Bool)?
    /// Decides conflicts found while pulling (nil: ``ConflictResolver/default``).
    public var conflictResolver: (any ConflictResolverProtocol)?
    /// Seconds between WebSocket pings that keep an idle connection alive (default 300); a ping
    /// unanswered for 10 s (or one interval, if shorter) counts as a dropped connection, which
    /// is retried.
    public var heartbeat: TimeInterval = 300
    /// Connection attempts before giving up on a transient error (0: the default, 10 for a
    /// one-shot replicator, unlimited for a continuous one).
    public var maxAttempts = 0
    /// The longest wait between attempts, in seconds (default 300).
    public var maxAttemptWaitTime: TimeInterval = 300
    /// The largest blob accepted from the server, in bytes (default 4 GiB): a pulled revision
    /// naming a larger one is not saved, and a blob that declares no length is cut off there.
    /// Not in Couchbase Lite 2.x, which has no limit.
    public var maxBlobSizeFromPeer: Int64 = 4 << 30

    /// Creates a configuration replicating `database` with `target`.
    public init(database: Database, target: any Endpoint) {
        self.database = database
        self.target = target
    }

    /// Copies another configuration.
    public convenience init(config: ReplicatorConfiguration) {
        self.init(database: config.database, target: config.target)
        replicatorType = config.replicatorType
        continuous = config.continuous
        authenticator = config.authenticator
        pinnedServerCertificate = config.pinnedServerCertificate
        acceptOnlySelfSignedServerCertificate = config.acceptOnlySelfSignedServerCertificate
        headers = config.headers
        channels = config.channels
        documentIDs = config.documentIDs
        pushFilter = config.pushFilter
        pullFilter = config.pullFilter
        conflictResolver = config.conflictResolver
        heartbeat = config.heartbeat
        maxAttempts = config.maxAttempts
        maxAttemptWaitTime = config.maxAttemptWaitTime
        maxBlobSizeFromPeer = config.maxBlobSizeFromPeer
    }
}
