import Foundation
import LiteSupport
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
public final class ReplicatorConfiguration: Sendable {
    /// The local database.
    public let database: Database
    /// The other side.
    public let target: any Endpoint
    /// Push, pull or both (default both).
    public var replicatorType: ReplicatorType {
        get { settings.withLock { $0.replicatorType } }
        set { settings.withLock { $0.replicatorType = newValue } }
    }
    /// Keep replicating as changes happen (default: stop when caught up).
    public var continuous: Bool {
        get { settings.withLock { $0.continuous } }
        set { settings.withLock { $0.continuous = newValue } }
    }
    /// Credentials for the server.
    public var authenticator: (any Authenticator)? {
        get { settings.withLock { $0.authenticator } }
        set { settings.withLock { $0.authenticator = newValue } }
    }
    /// The server's certificate to accept, and only it, instead of checking the chain; make it
    /// from DER bytes with `SecCertificateCreateWithData(nil, data)` (on Linux, this module's).
    public var pinnedServerCertificate: SecCertificate? {
        get { settings.withLock { $0.pinnedServerCertificate } }
        set { settings.withLock { $0.pinnedServerCertificate = newValue } }
    }
    /// Accept a self-signed server certificate without pinning it (for development).
    public var acceptOnlySelfSignedServerCertificate: Bool {
        get { settings.withLock { $0.acceptOnlySelfSignedServerCertificate } }
        set { settings.withLock { $0.acceptOnlySelfSignedServerCertificate = newValue } }
    }
    /// Extra HTTP headers for the connection request.
    public var headers: [String: String]? {
        get { settings.withLock { $0.headers } }
        set { settings.withLock { $0.headers = newValue } }
    }
    /// Sync Gateway channels to pull (nil: every channel the user may read).
    public var channels: [String]? {
        get { settings.withLock { $0.channels } }
        set { settings.withLock { $0.channels = newValue } }
    }
    /// Only these documents (nil: all).
    public var documentIDs: [String]? {
        get { settings.withLock { $0.documentIDs } }
        set { settings.withLock { $0.documentIDs = newValue } }
    }
    /// Decides which local revisions are pushed; return false to skip one.
    public var pushFilter: (@Sendable (Document, DocumentFlags) -> Bool)? {
        get { settings.withLock { $0.pushFilter } }
        set { settings.withLock { $0.pushFilter = newValue } }
    }
    /// Decides which pulled revisions are saved; return false to skip one.
    public var pullFilter: (@Sendable (Document, DocumentFlags) -> Bool)? {
        get { settings.withLock { $0.pullFilter } }
        set { settings.withLock { $0.pullFilter = newValue } }
    }
    /// Decides conflicts found while pulling (nil: ``ConflictResolver/default``).
    public var conflictResolver: (any ConflictResolverProtocol)? {
        get { settings.withLock { $0.conflictResolver } }
        set { settings.withLock { $0.conflictResolver = newValue } }
    }
    /// Seconds between WebSocket pings that keep an idle connection alive (default 300); a ping
    /// unanswered for 10 s (or one interval, if shorter) counts as a dropped connection, which
    /// is retried.
    public var heartbeat: TimeInterval {
        get { settings.withLock { $0.heartbeat } }
        set { settings.withLock { $0.heartbeat = newValue } }
    }
    /// Connection attempts before giving up on a transient error (0: the default, 10 for a
    /// one-shot replicator, unlimited for a continuous one).
    public var maxAttempts: Int {
        get { settings.withLock { $0.maxAttempts } }
        set { settings.withLock { $0.maxAttempts = newValue } }
    }
    /// The longest wait between attempts, in seconds (default 300).
    public var maxAttemptWaitTime: TimeInterval {
        get { settings.withLock { $0.maxAttemptWaitTime } }
        set { settings.withLock { $0.maxAttemptWaitTime = newValue } }
    }
    /// The largest blob accepted from the server, in bytes (default 4 GiB): a pulled revision
    /// naming a larger one is not saved, and a blob that declares no length is cut off there.
    /// Not in Couchbase Lite 2.x, which has no limit.
    public var maxBlobSizeFromPeer: Int64 {
        get { settings.withLock { $0.maxBlobSizeFromPeer } }
        set { settings.withLock { $0.maxBlobSizeFromPeer = newValue } }
    }

    /// Every setting but the database and the target, behind one lock.
    private struct Settings: Sendable {
        var replicatorType: ReplicatorType = .pushAndPull
        var continuous: Bool = false
        var authenticator: (any Authenticator)?
        var pinnedServerCertificate: SecCertificate?
        var acceptOnlySelfSignedServerCertificate: Bool = false
        var headers: [String: String]?
        var channels: [String]?
        var documentIDs: [String]?
        var pushFilter: (@Sendable (Document, DocumentFlags) -> Bool)?
        var pullFilter: (@Sendable (Document, DocumentFlags) -> Bool)?
        var conflictResolver: (any ConflictResolverProtocol)?
        var heartbeat: TimeInterval = 300
        var maxAttempts: Int = 0
        var maxAttemptWaitTime: TimeInterval = 300
        var maxBlobSizeFromPeer: Int64 = 4 << 30
    }
    private let settings = Locked(Settings())

    /// Creates a configuration replicating `database` with `target`.
    public init(database: Database, target: any Endpoint) {
        self.database = database
        self.target = target
    }

    /// Copies another configuration.
    public convenience init(config: ReplicatorConfiguration) {
        self.init(database: config.database, target: config.target)
        let copied = config.settings.withLock { $0 }
        settings.withLock { $0 = copied }
    }
}
