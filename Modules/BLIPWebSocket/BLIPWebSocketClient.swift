import Foundation
import LiteSupport
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import NIOWebSocket

/// Opens WebSocket connections for BLIP: the active side of replication.
///
/// ```swift
/// var options = BLIPWebSocketClientOptions()
/// options.headers.add(name: "Authorization", value: "Basic \(credentials)")
/// let transport = try await BLIPWebSocketClient.connect(
///     to: URL(string: "wss://sync.example.com:4984/db/_blipsync")!, options: options)
/// ```
///
/// Written on SwiftNIO's HTTP client upgrader rather than a WebSocket client library because the
/// replicator needs the HTTP status (and `WWW-Authenticate` / `Set-Cookie`) of a refused upgrade,
/// and needs the subprotocol answer checked; see docs/decisions.md.
package enum BLIPWebSocketClient {
    /// Connects to a `ws://` or `wss://` URL (path like `/db/_blipsync`) and completes the
    /// WebSocket upgrade.
    ///
    /// - Returns: the open transport, once the server answered `101` with the subprotocol.
    /// - Throws: ``BLIPWebSocketError``: `.refused` with the HTTP status for any other answer,
    ///   `.subprotocolNotAccepted`, `.untrustedCertificate` / `.pinnedCertificateMismatch` /
    ///   `.tlsFailure`, `.connectionFailed` (refused, DNS), `.timeout`, `.invalidURL`.
    package static func connect(to url: URL, options: BLIPWebSocketClientOptions = BLIPWebSocketClientOptions())
        async throws -> WebSocketBLIPTransport {
        let endpoint = try Endpoint(url)
        let tlsContext: NIOSSLContext?
        do {
            tlsContext = endpoint.secure ? try makeTLSContext(customVerification: ServerCertificateCheck(options) != nil) : nil
        } catch {
            throw BLIPWebSocketError.tlsFailure("cannot set up TLS: \(error)")
        }
        let timedOut = Locked(false)
        let rejectedCertificate = Locked<BLIPWebSocketError?>(nil)
        do {
            let upgrade = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(TimeAmount(options.connectTimeout))
                .connect(host: endpoint.host, port: endpoint.port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        // One deadline for TCP, TLS and the upgrade: closing the channel fails the upgrade.
                        let deadline = channel.eventLoop.scheduleTask(in: TimeAmount(options.connectTimeout)) {
                            timedOut.withLock { $0 = true }
                            channel.close(promise: nil)
                        }
                        channel.closeFuture.whenComplete { _ in deadline.cancel() }
                        let upgrade = try configure(channel, endpoint: endpoint, options: options, tlsContext: tlsContext,
                                                    rejectedCertificate: rejectedCertificate)
                        upgrade.whenComplete { result in
                            deadline.cancel()
                            if case .failure = result { channel.close(promise: nil) }
                        }
                        return upgrade
                    }
                }
            switch try await upgrade.get() {
            case .upgraded(let transport):
                return transport
            case .refused(let refusal):
                throw BLIPWebSocketError.refused(try await refusal.get())
            case .subprotocolNotAccepted(let answered):
                throw BLIPWebSocketError.subprotocolNotAccepted(offered: options.subprotocol, answered: answered)
            }
        } catch {
            if timedOut.withLock({ $0 }) { throw BLIPWebSocketError.timeout }
            if let rejection = rejectedCertificate.withLock({ $0 }) { throw rejection }
            throw BLIPWebSocketError(connecting: error)
        }
    }

    /// What the upgrade came to.
    private enum Outcome: Sendable {
        case upgraded(WebSocketBLIPTransport)
        case refused(EventLoopFuture<UpgradeRefusal>)
        case subprotocolNotAccepted(answered: String?)
    }

    /// Builds the pipeline (TLS, HTTP client upgrade to WebSocket); runs on the channel's loop.
    private static func configure(_ channel: any Channel, endpoint: Endpoint, options: BLIPWebSocketClientOptions,
                                  tlsContext: NIOSSLContext?,
                                  rejectedCertificate: Locked<BLIPWebSocketError?>) throws -> EventLoopFuture<Outcome> {
        if let tlsContext {
            // SNI cannot carry an IP address; without it NIOSSL checks the IP against the certificate's SANs.
            let serverName = endpoint.hostIsIPAddress ? nil : endpoint.host
            let tls: NIOSSLClientHandler
            if let check = ServerCertificateCheck(options) {
                tls = try NIOSSLClientHandler(context: tlsContext, serverHostname: serverName) { certificates, promise in
                    // Replaces all of BoringSSL's verification.
                    let leaf = certificates.first.flatMap { try? $0.toDERBytes() }  // allowed: an unreadable leaf is rejected below
                    if let rejection = check.rejection(ofLeaf: leaf) {
                        rejectedCertificate.withLock { $0 = rejection }
                        promise.succeed(.failed)
                    } else {
                        promise.succeed(.certificateVerified)
                    }
                }
            } else {
                tls = try NIOSSLClientHandler(context: tlsContext, serverHostname: serverName)
            }
            try channel.pipeline.syncOperations.addHandler(tls)
        }

        var headers = HTTPHeaders()
        headers.add(name: "Host", value: endpoint.hostHeader)
        headers.add(name: "Sec-WebSocket-Protocol", value: options.subprotocol)
        for field in options.headers.fields { headers.add(name: field.name, value: field.value) }
        let request = HTTPRequestHead(version: .http1_1, method: .GET, uri: endpoint.target, headers: headers)

        let offered = options.subprotocol
        let upgrader = NIOTypedWebSocketClientUpgrader<Outcome>(maxFrameSize: min(options.maxMessageSize, Int(UInt32.max)))
        { channel, response in
            channel.eventLoop.makeCompletedFuture {
                var peerHeaders = HTTPHeaderFields()
                for (name, value) in response.headers { peerHeaders.add(name: name, value: value) }
                guard peerHeaders.tokens(for: "Sec-WebSocket-Protocol") == [offered] else {
                    // LiteCore treats a 101 without our subprotocol as a protocol error (close 1002).
                    channel.close(promise: nil)
                    return .subprotocolNotAccepted(answered: peerHeaders["Sec-WebSocket-Protocol"])
                }
                return .upgraded(try WebSocketBLIPTransport.install(
                    on: channel, role: .client, peerHeaders: peerHeaders, subprotocol: offered,
                    maxMessageSize: options.maxMessageSize, closeTimeout: options.closeTimeout,
                    heartbeat: options.heartbeat))
            }
        }
        let upgradeConfiguration = NIOTypedHTTPClientUpgradeConfiguration<Outcome>(
            upgradeRequestHead: request, upgraders: [upgrader],
            notUpgradingCompletionHandler: { channel in
                channel.eventLoop.makeCompletedFuture {
                    let refusal = channel.eventLoop.makePromise(of: UpgradeRefusal.self)
                    try channel.pipeline.syncOperations.addHandler(UpgradeRefusalReader(promise: refusal))
                    return .refused(refusal.futureResult)
                }
            })
        var configuration = NIOUpgradableHTTPClientPipelineConfiguration(upgradeConfiguration: upgradeConfiguration)
        configuration.leftOverBytesStrategy = .forwardBytes
        let upgrade = try channel.pipeline.syncOperations.configureUpgradableHTTPClientPipeline(configuration: configuration)
        // NIO writes `Connection: upgrade`; Couchbase Lite's listener compares the value
        // case-sensitively with "Upgrade" and answers 405 otherwise (seen with the real 2.8).
        let encoder = try channel.pipeline.syncOperations.handler(type: HTTPRequestEncoder.self)
        try channel.pipeline.syncOperations.addHandler(UpgradeHeaderCasing(), position: .after(encoder))
        return upgrade
    }

    private static func makeTLSContext(customVerification: Bool) throws -> NIOSSLContext {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.minimumTLSVersion = .tlsv12
        if customVerification {
            // The custom callback decides; BoringSSL must still ask it (not `.none`).
            configuration.certificateVerification = .noHostnameVerification
        }
        return try NIOSSLContext(configuration: configuration)
    }
}

/// The parts of a `ws`/`wss` URL a connection needs.
struct Endpoint: Sendable {
    var secure: Bool
    var host: String
    var port: Int
    /// Path and query, as sent in the request line.
    var target: String

    init(_ url: URL) throws {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
              let scheme = components.scheme?.lowercased(), scheme == "ws" || scheme == "wss",
              let host = components.host, !host.isEmpty else {
            throw BLIPWebSocketError.invalidURL(url.absoluteString)
        }
        secure = scheme == "wss"
        // URLComponents keeps IPv6 brackets in `host` on some platforms; NIO wants them off.
        self.host = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        port = components.port ?? (secure ? 443 : 80)
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        target = components.percentEncodedQuery.map { "\(path)?\($0)" } ?? path
    }

    var hostIsIPAddress: Bool {
        (try? SocketAddress(ipAddress: host, port: 0)) != nil  // allowed: a yes/no question
    }

    /// The `Host` header: the port only when it is not the scheme's default.
    var hostHeader: String {
        let name = host.contains(":") ? "[\(host)]" : host
        return port == (secure ? 443 : 80) ? name : "\(name):\(port)"
    }
}
