/// What a server's `authenticate` closure decides about an upgrade request's credentials.
package enum BLIPWebSocketAuthDecision: Sendable, Equatable {
    /// Let the client in.
    case allow
    /// Refuse with `401 Unauthorized` and `WWW-Authenticate: Basic realm="<realm>"`, asking for
    /// (other) credentials.
    case challenge(realm: String)
    /// Refuse with `403 Forbidden`: the client is known but may not replicate.
    case forbid
}
