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
    /// The largest blob accepted from a client, in bytes (default 4 GiB): a pushed revision
    /// naming a larger one is refused, and a blob that declares no length is cut off there.
    /// Not in Couchbase Lite 2.x, which has no limit.
    public var maxBlobSizeFromPeer: Int64 = 4 << 30

    /// Creates a configuration serving `database`.
    public init(database: Database) {
        self.database = database
    }
}
