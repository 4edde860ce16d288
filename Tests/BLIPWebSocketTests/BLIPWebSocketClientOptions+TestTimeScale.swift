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
