/// How ``BLIPWebSocketClient`` opens a connection.
package struct BLIPWebSocketClientOptions: Sendable {
    /// The subprotocol Couchbase Lite 2.x offers and Sync Gateway / the 2.x listener answer.
    package static let defaultSubprotocol = "BLIP_3+CBMobile_2"

    /// Extra request headers (`Authorization: Basic …`, `Cookie: SyncGatewaySession=…`).
    package var headers: HTTPHeaderFields
    /// The `Sec-WebSocket-Protocol` offered; the server must answer with it.
    package var subprotocol: String
    /// DER bytes of the server certificate to accept. When set, the server is accepted if and
    /// only if its leaf certificate is exactly these bytes (self-signed ones included), and the
    /// trust store is not consulted. When nil, the chain must verify against the system trust
    /// store and the certificate must name the URL's host.
    package var pinnedServerCertificate: [UInt8]?
    /// Accept any self-signed server certificate (a peer-to-peer listener's generated one) and
    /// nothing else: no trust store, no host-name check. Couchbase Lite 2.8's
    /// `acceptOnlySelfSignedServerCertificate`. A pinned certificate takes precedence.
    package var acceptOnlySelfSignedServerCertificate: Bool
    /// Longest time for TCP connect, TLS handshake and HTTP upgrade together.
    package var connectTimeout: Duration
    /// Largest incoming message accepted (frames and reassembled fragments).
    package var maxMessageSize: Int
    /// How long ``WebSocketBLIPTransport/close(code:reason:)`` waits for the peer's close frame.
    package var closeTimeout: Duration
    /// Keep-alive: a WebSocket ping this often; a ping unanswered for 10 s (or one interval, if
    /// shorter) ends the connection as lost (``BLIPWebSocketError/connectionLost``). Nil: no
    /// pings. Couchbase Lite's `heartbeat` (default 300 s).
    package var heartbeat: Duration?

    package init(headers: HTTPHeaderFields = HTTPHeaderFields(), subprotocol: String = Self.defaultSubprotocol,
                 pinnedServerCertificate: [UInt8]? = nil, acceptOnlySelfSignedServerCertificate: Bool = false,
                 connectTimeout: Duration = .seconds(15),
                 maxMessageSize: Int = 1 << 24, closeTimeout: Duration = .seconds(5)) {
        self.headers = headers
        self.subprotocol = subprotocol
        self.pinnedServerCertificate = pinnedServerCertificate
        self.acceptOnlySelfSignedServerCertificate = acceptOnlySelfSignedServerCertificate
        self.connectTimeout = connectTimeout
        self.maxMessageSize = maxMessageSize
        self.closeTimeout = closeTimeout
    }
}
