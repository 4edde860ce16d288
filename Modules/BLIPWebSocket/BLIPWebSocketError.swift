/// Why a WebSocket connection for BLIP could not be opened, or ended.
///
/// The cases separate what the replicator treats differently: an HTTP refusal carries its
/// status code; TLS failures are permanent until the configuration changes; connection
/// failures, timeouts and lost connections are transient (see ``isTransient``).
package enum BLIPWebSocketError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The URL is not `ws://` or `wss://` with a host, or cannot be used as given.
    case invalidURL(String)
    /// The server answered the upgrade request with an HTTP status other than 101.
    case refused(UpgradeRefusal)
    /// The server upgraded without agreeing to the subprotocol offered (`answered` is its
    /// `Sec-WebSocket-Protocol`, nil when absent).
    case subprotocolNotAccepted(offered: String, answered: String?)
    /// The server's certificate chain or host name did not verify against the trust store.
    case untrustedCertificate(String)
    /// A certificate was pinned and the server's leaf certificate is a different one.
    case pinnedCertificateMismatch
    /// The TLS handshake failed for another reason (protocol version, cipher, bad identity).
    case tlsFailure(String)
    /// The TCP connection could not be made: refused, host not found, network unreachable.
    case connectionFailed(String)
    /// Connecting (TCP, TLS and the HTTP upgrade together) took longer than allowed.
    case timeout
    /// The peer broke the WebSocket protocol: a text message, a bad frame, a bad handshake.
    case protocolError(String)
    /// The peer closed the WebSocket with a code other than 1000 (normal).
    case closed(code: UInt16, reason: String)
    /// The connection dropped without a WebSocket close handshake.
    case connectionLost
    /// The transport is closed (or closing): nothing more can be sent.
    case notConnected

    /// Whether trying again later, unchanged, may succeed: connection failures, timeouts,
    /// lost connections, 5xx/408/429 refusals and close codes 1001, 1006, 1011–1014.
    package var isTransient: Bool {
        switch self {
        case .connectionFailed, .timeout, .connectionLost:
            return true
        case .refused(let refusal):
            return refusal.status >= 500 || refusal.status == 408 || refusal.status == 429
        case .closed(let code, _):
            return code == 1001 || code == 1006 || (1011...1014).contains(code)
        case .invalidURL, .subprotocolNotAccepted, .untrustedCertificate, .pinnedCertificateMismatch,
             .tlsFailure, .protocolError, .notConnected:
            return false
        }
    }

    package var description: String {
        switch self {
        case .invalidURL(let url): return "invalid WebSocket URL \(url): expected ws:// or wss:// with a host"
        case .refused(let refusal): return "server refused the WebSocket upgrade: HTTP \(refusal.status) \(refusal.reason)"
        case .subprotocolNotAccepted(let offered, let answered):
            return "server did not accept subprotocol \(offered) (answered \(answered ?? "none"))"
        case .untrustedCertificate(let detail): return "server certificate is not trusted: \(detail)"
        case .pinnedCertificateMismatch: return "server certificate does not match the pinned certificate"
        case .tlsFailure(let detail): return "TLS handshake failed: \(detail)"
        case .connectionFailed(let detail): return "could not connect: \(detail)"
        case .timeout: return "timed out connecting"
        case .protocolError(let detail): return "WebSocket protocol error: \(detail)"
        case .closed(let code, let reason): return "peer closed the WebSocket with code \(code) \(reason)"
        case .connectionLost: return "connection lost without a WebSocket close"
        case .notConnected: return "WebSocket is closed"
        }
    }
}
