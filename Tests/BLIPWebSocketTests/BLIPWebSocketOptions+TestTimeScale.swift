import BLIPWebSocket
import TestSupport

extension BLIPWebSocketClientOptions {
    /// These options with their connect and close deadlines stretched by ``TestTimeScale``, so that
    /// a sanitized run's slowdown is not taken for a peer that does not answer.
    var scaledForTests: Self {
        var options = self
        options.connectTimeout = TestTimeScale.scaled(connectTimeout)
        options.closeTimeout = TestTimeScale.scaled(closeTimeout)
        return options
    }
}

extension BLIPWebSocketServerOptions {
    /// These options with their handshake, idle and close deadlines stretched by
    /// ``TestTimeScale``: a sanitized run's slow TLS handshake is not a stalled client.
    var scaledForTests: Self {
        var options = self
        options.handshakeTimeout = handshakeTimeout.map(TestTimeScale.scaled)
        options.idleTimeout = idleTimeout.map(TestTimeScale.scaled)
        options.closeTimeout = TestTimeScale.scaled(closeTimeout)
        return options
    }
}
