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
    /// Most connections open at once; more get `503 Service Unavailable`. Nil: no limit.
    package var maxConnections: Int?
    /// Largest incoming message accepted.
    package var maxMessageSize: Int
    /// How long closing a connection waits for the client's close frame.
    package var closeTimeout: Duration

    package init(host: String = "127.0.0.1", port: Int = 0, tlsIdentity: TLSIdentity? = nil,
                 subprotocols: [String] = [BLIPWebSocketClientOptions.defaultSubprotocol],
                 authenticate: (@Sendable (HTTPHeaderFields) -> BLIPWebSocketAuthDecision)? = nil,
                 databaseExists: (@Sendable (String) -> Bool)? = nil, maxConnections: Int? = nil,
                 maxMessageSize: Int = 1 << 24, closeTimeout: Duration = .seconds(5)) {
        self.host = host
        self.port = port
        self.tlsIdentity = tlsIdentity
        self.subprotocols = subprotocols
        self.authenticate = authenticate
        self.databaseExists = databaseExists
        self.maxConnections = maxConnections
        self.maxMessageSize = maxMessageSize
        self.closeTimeout = closeTimeout
    }
}
