/// How a ``BLIPWebSocketServer`` listens and whom it lets in.
package struct BLIPWebSocketServerOptions: Sendable {
    /// The interface address to bind (`0.0.0.0` for every IPv4 interface, `::` for IPv6).
    /// Loopback by default: the public listener API chooses wider ones explicitly.
    package var host: String
    /// The TCP port; 0 lets the system pick a free one (``BLIPWebSocketServer/start()`` returns it).
    package var port: Int
    /// The certificate and key to serve `wss://` with; nil serves plain `ws://`.
    package var tlsIdentity: TLSIdentity?
    /// The subprotocols accepted; the client must offer one of them (`Sec-WebSocket-Protocol`),
    /// and the response echoes the first one it offered that is accepted.
    package var subprotocols: [String]
    /// Checks the upgrade request's headers (`Authorization`, `Cookie`); nil lets everyone in.
    /// Runs on a network thread: it must not block.
    package var authenticate: (@Sendable (HTTPHeaderFields) -> BLIPWebSocketAuthDecision)?
    /// Whether the path's database exists; requests for one that does not get `404`. Runs on a
    /// network thread: it must not block. Nil accepts every name.
    package var databaseExists: (@Sendable (String) -> Bool)?
    /// Most connections open at once, counting those still in their TLS or HTTP handshake.
    /// When they are all taken, a new connection closes the oldest one still in its handshake
    /// (so clients that stall their handshake cannot lock others out); with none to close, it
    /// gets `503 Service Unavailable`. Nil: no limit.
    package var maxConnections: Int?
    /// Largest incoming WebSocket message (one BLIP frame: 16 KiB from LiteCore and from us).
    package var maxMessageSize: Int
    /// How long closing a connection waits for the client's close frame.
    package var closeTimeout: Duration
    /// How long a connection may take from its accept to its WebSocket upgrade (TLS and HTTP
    /// handshakes); it is closed when still not upgraded by then. Nil: no deadline.
    package var handshakeTimeout: Duration?
    /// How long an upgraded connection may go without a word from the client: after half of
    /// it the server pings, and a client that still sends nothing (not even the pong) by the
    /// end is closed with code 1001. Nil: never.
    package var idleTimeout: Duration?
    /// Bytes of received frames the server holds before it stops reading from the socket
    /// until the connection's reader catches up (back-pressure rather than memory).
    package var maxBufferedBytes: Int
    /// Gets one line for each connection the server closes on its own (a handshake past its
    /// deadline, one closed to make room, an idle one). Runs on a network thread.
    package var log: (@Sendable (String) -> Void)?

    /// The default handshake deadline: 5 s.
    package static let defaultHandshakeTimeout: Duration = .seconds(5)
    /// The default idle timeout: 60 s.
    package static let defaultIdleTimeout: Duration = .seconds(60)
    /// The default for ``maxBufferedBytes``: 1 MiB.
    package static let defaultMaxBufferedBytes = 1 << 20

    package init(host: String = "127.0.0.1", port: Int = 0, tlsIdentity: TLSIdentity? = nil,
                 subprotocols: [String] = [BLIPWebSocketClientOptions.defaultSubprotocol],
                 authenticate: (@Sendable (HTTPHeaderFields) -> BLIPWebSocketAuthDecision)? = nil,
                 databaseExists: (@Sendable (String) -> Bool)? = nil, maxConnections: Int? = nil,
                 maxMessageSize: Int = 1 << 20, closeTimeout: Duration = .seconds(5),
                 handshakeTimeout: Duration? = defaultHandshakeTimeout, idleTimeout: Duration? = defaultIdleTimeout,
                 maxBufferedBytes: Int = defaultMaxBufferedBytes) {
        self.host = host
        self.port = port
        self.tlsIdentity = tlsIdentity
        self.subprotocols = subprotocols
        self.authenticate = authenticate
        self.databaseExists = databaseExists
        self.maxConnections = maxConnections
        self.maxMessageSize = maxMessageSize
        self.closeTimeout = closeTimeout
        self.handshakeTimeout = handshakeTimeout
        self.idleTimeout = idleTimeout
        self.maxBufferedBytes = maxBufferedBytes
    }
}
