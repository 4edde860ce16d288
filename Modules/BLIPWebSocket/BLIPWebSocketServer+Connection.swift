extension BLIPWebSocketServer {
    /// One accepted WebSocket connection, as the server's handler receives it.
    package struct Connection: Sendable {
        /// The database named by the request path `/<db>/_blipsync` (percent-decoded).
        package let databaseName: String
        /// The upgrade request's headers (`Authorization`, `Cookie`, `User-Agent`, …).
        package let headers: HTTPHeaderFields
        /// The client's address as `host:port`, when known.
        package let remoteAddress: String?
        /// The subprotocol agreed on.
        package let subprotocol: String
        /// The BLIP frames of this connection.
        package let transport: WebSocketBLIPTransport
    }
}
