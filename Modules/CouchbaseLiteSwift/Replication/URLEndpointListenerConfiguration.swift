import Foundation

/// Decides whether a user name and password may connect to a listener.
public struct ListenerPasswordAuthenticator: Sendable {
    let check: @Sendable (String, String) -> Bool

    /// Creates the authenticator; `authenticate` returns true for an accepted user.
    public init(_ authenticate: @escaping @Sendable (_ username: String, _ password: String) -> Bool) {
        check = authenticate
    }
}

/// A certificate and private key a listener presents (PEM text), or a generated one.
public struct TLSIdentity: Sendable {
    /// The certificate chain, leaf first, as PEM.
    public let certificatePEM: String
    /// The private key, as PEM.
    public let privateKeyPEM: String
    /// The leaf certificate as DER: what a client pins (`pinnedServerCertificate`).
    public let certificateDER: Data?

    /// An identity from PEM text.
    public init(certificatePEM: String, privateKeyPEM: String) {
        self.certificatePEM = certificatePEM
        self.privateKeyPEM = privateKeyPEM
        certificateDER = nil
    }

    init(certificatePEM: String, privateKeyPEM: String, certificateDER: Data) {
        self.certificatePEM = certificatePEM
        self.privateKeyPEM = privateKeyPEM
        self.certificateDER = certificateDER
    }
}

/// How a ``URLEndpointListener`` serves its database.
public struct URLEndpointListenerConfiguration: Sendable {
    /// The database served (at `/<database name>`).
    public let database: Database
    /// The TCP port (0: any free port; read the chosen one from ``URLEndpointListener/port``).
    public var port: UInt16 = 0
    /// The address to listen on (nil: every interface).
    public var networkInterface: String?
    /// Serve plain `ws://` instead of `wss://`.
    public var disableTLS = false
    /// The TLS identity (nil with TLS on: a self-signed one is generated when the listener starts).
    public var tlsIdentity: TLSIdentity?
    /// Who may connect (nil: anyone).
    public var authenticator: ListenerPasswordAuthenticator?
    /// Refuse pushes from clients.
    public var readOnly = false
    /// Most connections open at once, counting those still in their TLS or HTTP handshake
    /// (default 100). When all are taken, a new client closes the oldest connection still in
    /// its handshake; with none, it is answered `503 Service Unavailable`.
    public var maxConnections = 100
    /// Seconds a client has from connecting to completing its WebSocket upgrade (default 5);
    /// a connection still not upgraded then is closed.
    public var handshakeTimeout: TimeInterval = 5
    /// Seconds a connected client may send nothing (default 60): the listener pings it half way
    /// and closes the connection (WebSocket code 1001) if not even the pong comes back.
    public var idleTimeout: TimeInterval = 60
    /// The largest message a client may send, uncompressed (default 20 MiB, Couchbase Server's
    /// document size limit): a document revision must fit in one. A bigger one closes the
    /// connection with WebSocket code 1009. Raise it to accept bigger documents.
    public var maxMessageSize = 20 << 20
    /// The largest blob accepted from a client, in bytes (default 4 GiB): a pushed revision
    /// naming a larger one is refused, and a blob that declares no length is cut off there.
    /// Not in Couchbase Lite 2.x, which has no limit.
    public var maxBlobSizeFromPeer: Int64 = 4 << 30

    /// Creates a configuration serving `database`.
    public init(database: Database) {
        self.database = database
    }
}
