/// A server's answer to a WebSocket upgrade request that was not `101 Switching Protocols`.
///
/// The replicator decides from `status` whether to retry (5xx, 408, 429) or stop (401, 403,
/// 404), and from `wwwAuthenticate` / `setCookies` how to authenticate next time.
package struct UpgradeRefusal: Sendable, Equatable {
    /// The HTTP status code (401, 403, 404, 503, …).
    package var status: Int
    /// The status line's reason phrase as the server sent it.
    package var reason: String
    /// Every response header.
    package var headers: HTTPHeaderFields

    package init(status: Int, reason: String, headers: HTTPHeaderFields = HTTPHeaderFields()) {
        self.status = status
        self.reason = reason
        self.headers = headers
    }

    /// The `WWW-Authenticate` challenge, if the server sent one (with 401).
    package var wwwAuthenticate: String? { headers["WWW-Authenticate"] }

    /// Every `Set-Cookie` value the server sent (a session cookie for the next attempt).
    package var setCookies: [String] { headers.values(for: "Set-Cookie") }
}
