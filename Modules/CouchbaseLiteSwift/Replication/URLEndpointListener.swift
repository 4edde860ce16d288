import BLIP
import BLIPWebSocket
import Foundation
import LiteReplicator
import LiteSupport

/// Serves a database to replicators over the network (`ws://` or `wss://`), so that another
/// Couchbase Lite — ours or Couchbase's — can push to it and pull from it.
///
/// ```swift
/// var config = URLEndpointListenerConfiguration(database: db)
/// config.disableTLS = true
/// let listener = URLEndpointListener(config: config)
/// try await listener.start()
/// print(listener.urls)   // ws://127.0.0.1:<port>/<db name>  // allowed: the caller's code in a doc example
/// ```
public final class URLEndpointListener: Sendable {
    /// The configuration.
    public let config: URLEndpointListenerConfiguration

    struct State {
        var server: BLIPWebSocketServer?
        var identity: TLSIdentity?
        var connections = 0
        var active = 0
        var idleWaiters: [CheckedContinuation<Void, Never>] = []
    }
    let state = Locked(State())

    /// Creates a listener; it accepts nothing until ``start()``.
    public init(config: URLEndpointListenerConfiguration) {
        self.config = config
    }

    /// The port it listens on (nil while stopped).
    public var port: UInt16? { state.withLock { $0.server?.port.map { UInt16($0) } } }

    /// The TLS identity in use (nil without TLS or while stopped).
    public var tlsIdentity: TLSIdentity? { state.withLock { $0.identity } }

    /// URLs a replicator can use to reach the database.
    public var urls: [URL] {
        guard let server = state.withLock({ $0.server }),
              let url = server.url(forDatabase: config.database.name) else { return [] }
        return [url.lastPathComponent == "_blipsync" ? url.deletingLastPathComponent() : url]
    }

    /// Connections open now, and those busy replicating.
    public var status: (connectionCount: Int, activeConnectionCount: Int) {
        state.withLock { ($0.connections, $0.active) }
    }

    /// Starts listening.
    ///
    /// - Throws: `CouchbaseLiteError` when the port is taken or the TLS identity is unusable.
    public func start() async throws {
        guard state.withLock({ $0.server == nil }) else { return }
        var identity = config.tlsIdentity
        var serverIdentity: BLIPWebSocket.TLSIdentity?
        if !config.disableTLS {
            if identity == nil {
                let generated = try CouchbaseLiteError.wrapping("generating the listener's TLS certificate") {
                    try SelfSignedCertificate(commonName: "CBL-Listener")
                }
                identity = TLSIdentity(certificatePEM: generated.certificatePEM, privateKeyPEM: generated.privateKeyPEM,
                                       certificateDER: Data(generated.certificateDER))
            }
            if let identity {
                serverIdentity = BLIPWebSocket.TLSIdentity(pemCertificateChain: identity.certificatePEM,
                                                           pemPrivateKey: identity.privateKeyPEM)
            }
        }
        var options = BLIPWebSocketServerOptions(host: config.networkInterface ?? "0.0.0.0", port: Int(config.port),
                                                 tlsIdentity: serverIdentity)
        let databaseName = config.database.name
        options.databaseExists = { $0 == databaseName }
        options.maxConnections = max(config.maxConnections, 1)
        options.handshakeTimeout = Self.duration(config.handshakeTimeout)
        options.idleTimeout = Self.duration(config.idleTimeout)
        // Info, not warning: each line is one peer's connection (a stalled handshake, an idle
        // client), and a peer opening hundreds must not flood the warning log.
        options.log = { Database.log.log(.info, .network, "Listener for \"\(databaseName)\": \($0)") }
        // Messages under way together may hold one maximal message and as much again in
        // small ones (a pusher keeps up to 100 revisions in flight).
        let limits = BLIPLimits(maxMessageSize: config.maxMessageSize, maxOpenMessages: 256,
                                maxIncompleteBytes: config.maxMessageSize + (8 << 20))
        if let authenticator = config.authenticator {
            options.authenticate = { headers in
                guard let credentials = Self.basicCredentials(headers["Authorization"]),
                      authenticator.check(credentials.user, credentials.password) else {
                    return .challenge(realm: "Couchbase Lite")
                }
                return .allow
            }
        }
        let database = config.database
        let readOnly = config.readOnly
        let replicationLimits = {
            var limits = ReplicationLimits()
            limits.maxBlobSize = config.maxBlobSizeFromPeer
            return limits
        }()
        let server = BLIPWebSocketServer(options: options) { [weak self] connection in
            self?.state.withLock { $0.connections += 1; $0.active += 1 }
            let blip = BLIPConnection(transport: connection.transport, limits: limits)
            let session = ReplicationSession(database: database.core, connection: blip, role: .passive(readOnly: readOnly),
                                             limits: replicationLimits) { event in
                if case .refused(let message) = event {
                    Database.log.log(.warning, .replicator, "URLEndpointListener \"\(databaseName)\": \(message)")
                }
            }
            if let error = await session.serve(), Self.isPeersFault(error) {
                Database.log.log(.warning, .network, "Listener for \"\(databaseName)\": closed the connection from "
                                 + "\(connection.remoteAddress ?? "an unknown address"): \(error)")
            }
            self?.connectionEnded()
        }
        do {
            _ = try await server.start()
        } catch {
            throw CouchbaseLiteError(.ioError, "the listener for \"\(databaseName)\" cannot listen on port \(config.port): \(error)",
                                     underlying: error)
        }
        state.withLock {
            $0.server = server
            $0.identity = config.disableTLS ? nil : identity
        }
        // Until stop(): connections open sessions on the database's core, which a key change replaces.
        config.database.beginReplicationUse()
    }

    private func connectionEnded() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.connections -= 1
            state.active -= 1
            guard state.connections == 0 else { return [] }
            defer { state.idleWaiters.removeAll() }
            return state.idleWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once no connection is open and everything received has been saved (tests use
    /// it after killing a client).
    func waitUntilIdle() async {
        await withCheckedContinuation { continuation in
            let idle = state.withLock { state -> Bool in
                if state.connections == 0 { return true }
                state.idleWaiters.append(continuation)
                return false
            }
            if idle { continuation.resume() }
        }
    }

    /// Stops listening and closes every connection.
    public func stop() async {
        let server = state.withLock { state -> BLIPWebSocketServer? in
            defer { state.server = nil; state.identity = nil }
            return state.server
        }
        guard let server else { return }
        await server.stop()
        config.database.endReplicationUse()
    }

    /// Seconds as a `Duration` (nil for zero, negative or not finite: no limit).
    static func duration(_ seconds: TimeInterval) -> Duration? {
        guard seconds.isFinite, seconds > 0 else { return nil }
        return .milliseconds(Int64(min(seconds, 1e9) * 1000))
    }

    /// Whether a connection ended because the peer broke the protocol or a limit.
    static func isPeersFault(_ error: BLIPError) -> Bool {
        switch error {
        case .protocolViolation, .messageTooLarge, .limitExceeded: true
        default: false
        }
    }

    /// User and password from `Authorization: Basic …`.
    static func basicCredentials(_ header: String?) -> (user: String, password: String)? {
        guard let header, header.lowercased().hasPrefix("basic "),
              let data = Data(base64Encoded: String(header.dropFirst(6)).trimmingCharacters(in: .whitespaces)),
              let text = String(data: data, encoding: .utf8), let colon = text.firstIndex(of: ":") else { return nil }
        return (String(text[..<colon]), String(text[text.index(after: colon)...]))
    }
}
