import BLIP
import BLIPWebSocket
import Foundation
#if canImport(Security)
import Security
#endif
import LiteReplicator

/// Opens WebSocket connections for URL endpoints.
enum ReplicatorNetwork {
    /// Connects to `<url>/_blipsync` with the configuration's headers, credentials and TLS
    /// rules; failures become replication errors the retry logic understands.
    static func connect(to endpoint: URLEndpoint, config: ReplicatorConfiguration) async throws
        -> (BLIPConnection, String, @Sendable () -> Void) {
        let url = try blipURL(for: endpoint.url)
        var headers = HTTPHeaderFields()
        for (name, value) in (config.headers ?? [:]).sorted(by: { $0.key < $1.key }) { headers.add(name: name, value: value) }
        for (name, value) in (config.authenticator?.httpHeaders() ?? [:]).sorted(by: { $0.key < $1.key }) {
            headers.add(name: name, value: value)
        }
        var options = BLIPWebSocketClientOptions(
            headers: headers, pinnedServerCertificate: config.pinnedServerCertificate.map { [UInt8](SecCertificateCopyData($0) as Data) },
            acceptOnlySelfSignedServerCertificate: config.acceptOnlySelfSignedServerCertificate)
        // Keep-alive pings; a missing pong is a dropped connection (retried like any other).
        if config.heartbeat > 0, config.heartbeat.isFinite {
            options.heartbeat = .milliseconds(Int64(min(config.heartbeat, 86_400) * 1000))
        }
        do {
            let transport = try await BLIPWebSocketClient.connect(to: url, options: options)
            // LiteCore identifies the remote (checkpoint ID, remote number) by the WebSocket URL.
            return (BLIPConnection(transport: transport), url.absoluteString, {})
        } catch let error as BLIPWebSocketError {
            throw replicationError(error, url: endpoint.url)
        }
    }

    /// `ws[s]://host[:port]/db` → `…/db/_blipsync`.
    static func blipURL(for url: URL) throws -> URL {
        guard let scheme = url.scheme?.lowercased(), scheme == "ws" || scheme == "wss", url.host != nil else {
            throw CouchbaseLiteError(Code(rawValue: CBLErrorInvalidURL),
                                     "replication URL \(url.absoluteString) must be ws:// or wss:// with a host and a database")
        }
        guard !url.path.isEmpty, url.path != "/" else {
            throw CouchbaseLiteError(Code(rawValue: CBLErrorInvalidURL),
                                     "replication URL \(url.absoluteString) names no database (ws://host:port/<db>)")
        }
        return url.lastPathComponent == "_blipsync" ? url : url.appendingPathComponent("_blipsync")
    }

    typealias Code = CouchbaseLiteError.Code

    static func replicationError(_ error: BLIPWebSocketError, url: URL) -> ReplicationError {
        let context = "connecting to \(url.absoluteString)"
        switch error {
        case .refused(let refusal):
            return ReplicationError(.http, refusal.status, "\(context): the server answered HTTP \(refusal.status)"
                                    + (refusal.status == 401 ? " (wrong or missing credentials)" : ""), underlying: error)
        case .invalidURL: return ReplicationError(.network, 4, "\(context): invalid URL", underlying: error)
        case .untrustedCertificate, .pinnedCertificateMismatch:
            return ReplicationError(.network, 8, "\(context): the server's certificate is not trusted", underlying: error)
        case .tlsFailure: return ReplicationError(.network, 6, "\(context): the TLS handshake failed", underlying: error)
        case .timeout: return ReplicationError(.network, 3, "\(context): timed out", underlying: error)
        case .subprotocolNotAccepted:
            return ReplicationError(.webSocket, 1002, "\(context): the server does not speak the Couchbase Lite 2.x protocol",
                                    underlying: error)
        case .closed(let code, let reason): return ReplicationError(.webSocket, Int(code), "\(context): closed \(reason)", underlying: error)
        default: return ReplicationError(.network, 0, "\(context): \(error)", underlying: error)
        }
    }
}
