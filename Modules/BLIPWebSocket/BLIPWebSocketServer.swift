import Foundation
import LiteSupport
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import NIOWebSocket

/// Accepts WebSocket connections for BLIP on `/<db>/_blipsync`: the passive side of
/// replication (the URL endpoint listener's transport).
///
/// ```swift
/// let server = BLIPWebSocketServer(options: BLIPWebSocketServerOptions(port: 0)) { connection in
///     await runPassiveReplicator(database: connection.databaseName, over: connection.transport)
/// }
/// let port = try await server.start()
/// ...
/// await server.stop()
/// ```
///
/// Requests it refuses get a plain HTTP answer: `503` over `maxConnections`, `401` (with
/// `WWW-Authenticate: Basic realm="…"`) or `403` from `authenticate`, then `404` for another
/// path or an unknown database, `405` for a method other than GET, and `400` when the request
/// is not a WebSocket upgrade or does not offer an accepted subprotocol.
///
/// A connection not upgraded within `handshakeTimeout` is closed; so is the oldest one still in
/// its handshake when a new one arrives and `maxConnections` are open. An upgraded connection
/// that says nothing for `idleTimeout` is closed (``WebSocketFrameHandler``).
package final class BLIPWebSocketServer: Sendable {
    private struct State {
        var started = false
        var stopping = false
        var serverChannel: (any Channel)?
        var acceptLoop: Task<Void, Never>?
        var port: Int?
        /// Every accepted TCP connection, upgraded or not, so that `stop` can close it.
        var channels: [ObjectIdentifier: any Channel] = [:]
        /// The accepted connections not upgraded yet, with their order of arrival.
        var handshaking: [ObjectIdentifier: UInt64] = [:]
        var acceptCount: UInt64 = 0
        /// Connections whose handler is running.
        var connections: [ObjectIdentifier: WebSocketBLIPTransport] = [:]
    }

    /// What one TCP connection's upgrade came to.
    private enum Outcome: Sendable {
        case upgraded(Connection)
        case refused
    }

    package let options: BLIPWebSocketServerOptions
    private let handler: @Sendable (Connection) async -> Void
    private let state = Locked(State())

    /// Creates a stopped server.
    ///
    /// - Parameter handler: runs once per accepted connection, for its whole life: when it
    ///   returns, the server closes the connection (code 1000) if it is still open.
    package init(options: BLIPWebSocketServerOptions, handler: @escaping @Sendable (Connection) async -> Void) {
        self.options = options
        self.handler = handler
    }

    /// The bound port while running, else nil.
    package var port: Int? { state.withLock { $0.port } }

    /// The URL a client on this machine uses for `database` (`ws://127.0.0.1:<port>/<db>/_blipsync`,
    /// or `wss://` with a TLS identity), while running.
    package func url(forDatabase database: String) -> URL? {
        guard let port else { return nil }
        let host: String
        switch options.host {
        case "0.0.0.0", "": host = "127.0.0.1"
        case "::": host = "[::1]"
        case let name where name.contains(":"): host = "[\(name)]"
        case let name: host = name
        }
        let name = database.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(["/"])) ?? database
        return URL(string: "\(options.tlsIdentity == nil ? "ws" : "wss")://\(host):\(port)/\(name)/_blipsync")
    }

    /// Binds the port and starts accepting connections.
    ///
    /// - Returns: the bound port (the one the system picked when `options.port` is 0).
    /// - Throws: when already started, when the TLS identity cannot be loaded, or when the
    ///   address cannot be bound.
    package func start() async throws -> Int {
        let alreadyStarted = state.withLock { state in
            defer { state.started = true }
            return state.started
        }
        guard !alreadyStarted else { throw BLIPWebSocketError.protocolError("server already started") }
        let tlsContext = try options.tlsIdentity.map { try NIOSSLContext(configuration: $0.serverConfiguration()) }
        // Every accepted connection counts, the one being judged included.
        let policy = UpgradePolicy(options: options) { [state] in state.withLock { $0.channels.count } }
        let serverChannel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .bind(host: options.host, port: options.port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try self.configure(channel, tlsContext: tlsContext, policy: policy)
                }
            }
        let port = serverChannel.channel.localAddress?.port ?? options.port
        let acceptLoop = Task(executorPreference: ThreadPoolExecutor.replication) { await self.accept(on: serverChannel) }
        state.withLock { state in
            state.serverChannel = serverChannel.channel
            state.acceptLoop = acceptLoop
            state.port = port
        }
        return port
    }

    /// Stops listening, closes every connection (code 1001, "going away") and waits for the
    /// handlers to return. The port is free afterwards. Safe to call more than once.
    package func stop() async {
        let (serverChannel, acceptLoop, connections) = state.withLock { state in
            state.stopping = true
            state.port = nil
            return (state.serverChannel, state.acceptLoop, Array(state.connections.values))
        }
        try? await serverChannel?.close()  // allowed: stopping; an already-closed channel is the goal
        await withTaskGroup(of: Void.self) { group in
            for transport in connections {
                group.addTask { await transport.close(code: 1001, reason: "server stopping") }
            }
        }
        // Connections still in their handshake, or whose close handshake timed out.
        for channel in state.withLock({ Array($0.channels.values) }) { channel.close(promise: nil) }
        await acceptLoop?.value
    }

    // MARK: Connections

    private func accept(on serverChannel: NIOAsyncChannel<EventLoopFuture<Outcome>, Never>) async {
        // The accept loop ends when the server channel closes (stop) or fails; nothing to report to.
        try? await serverChannel.executeThenClose { inbound in  // allowed: see above
            try await withThrowingDiscardingTaskGroup { group in
                for try await upgrade in inbound {
                    group.addTask { await self.serve(upgrade) }
                }
            }
        }
    }

    private func serve(_ upgrade: EventLoopFuture<Outcome>) async {
        // A refused or failed handshake was already answered with its HTTP status.
        guard case .upgraded(let connection)? = try? await upgrade.get() else { return }  // allowed: see above
        let transport = connection.transport
        let id = ObjectIdentifier(transport)
        let admitted = state.withLock { state in
            guard !state.stopping else { return false }
            state.connections[id] = transport
            return true
        }
        if admitted { await handler(connection) }
        await transport.close(code: admitted ? 1000 : 1001, reason: admitted ? "" : "server stopping")
        state.withLock { _ = $0.connections.removeValue(forKey: id) }
    }

    /// Builds an accepted connection's pipeline (TLS, HTTP with WebSocket upgrade); runs on
    /// the channel's event loop.
    private func configure(_ channel: any Channel, tlsContext: NIOSSLContext?,
                           policy: UpgradePolicy) throws -> EventLoopFuture<Outcome> {
        let state = state
        let options = options
        let id = ObjectIdentifier(channel)
        let (stopping, evicted) = state.withLock { state -> (Bool, (any Channel)?) in
            guard !state.stopping else { return (true, nil) }
            var evicted: (any Channel)?
            // Full: the connection longest in its handshake makes room. Upgraded ones stay;
            // with none to close, the newcomer is answered 503 by the policy.
            if let limit = options.maxConnections, state.channels.count >= limit,
               let oldest = state.handshaking.min(by: { $0.value < $1.value })?.key {
                state.handshaking.removeValue(forKey: oldest)
                evicted = state.channels.removeValue(forKey: oldest)
            }
            state.channels[id] = channel
            state.handshaking[id] = state.acceptCount
            state.acceptCount &+= 1
            return (false, evicted)
        }
        guard !stopping else { throw ChannelError.ioOnClosedChannel }
        if let evicted {
            options.log?("closed a connection from \(Self.describe(evicted.remoteAddress)) still in its handshake, "
                         + "to make room for a new one (\(options.maxConnections ?? 0) connections open)")
            evicted.close(promise: nil)
        }
        channel.closeFuture.whenComplete { [state] _ in
            state.withLock { state in
                // Only this channel's own entries: an evicted one's id may be reused by now.
                if state.channels[id] === channel {
                    state.channels.removeValue(forKey: id)
                    state.handshaking.removeValue(forKey: id)
                }
            }
        }
        if let deadline = options.handshakeTimeout {
            let log = options.log
            let timer = channel.eventLoop.scheduleTask(in: TimeAmount(deadline)) { [state] in
                let late = state.withLock { $0.handshaking[id] != nil && $0.channels[id] === channel }
                guard late else { return }
                log?("closed a connection from \(Self.describe(channel.remoteAddress)): no WebSocket upgrade "
                     + "within \(deadline)")
                channel.close(promise: nil)
            }
            channel.closeFuture.whenComplete { _ in timer.cancel() }
        }

        if let tlsContext { try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: tlsContext)) }
        // The upgrader's verdict, for the refusal responder when it does not upgrade.
        let verdict = NIOLoopBoundBox<UpgradePolicy.Verdict?>(nil, eventLoop: channel.eventLoop)
        let upgrader = NIOTypedWebSocketServerUpgrader<Outcome>(
            maxFrameSize: min(options.maxMessageSize, Int(UInt32.max)),
            shouldUpgrade: { channel, head in
                let judged = policy.verdict(for: head, isUpgrade: true)
                verdict.value = judged
                guard case .accept(_, let subprotocol) = judged else { return channel.eventLoop.makeSucceededFuture(nil) }
                // Out of its handshake before the 101 goes out: a client that gets it and opens
                // its next connection at once must not find this one evictable.
                state.withLock { _ = $0.handshaking.removeValue(forKey: id) }
                return channel.eventLoop.makeSucceededFuture(HTTPHeaders([("Sec-WebSocket-Protocol", subprotocol)]))
            },
            upgradePipelineHandler: { channel, head in
                channel.eventLoop.makeCompletedFuture {
                    guard case .accept(let database, let subprotocol)? = verdict.value else { return .refused }
                    var headers = HTTPHeaderFields()
                    for (name, value) in head.headers { headers.add(name: name, value: value) }
                    let transport = try WebSocketBLIPTransport.install(
                        on: channel, role: .server, peerHeaders: headers, subprotocol: subprotocol,
                        maxMessageSize: options.maxMessageSize, closeTimeout: options.closeTimeout,
                        idleTimeout: options.idleTimeout, maxBufferedBytes: options.maxBufferedBytes, log: options.log)
                    return .upgraded(Connection(databaseName: database, headers: headers,
                                                remoteAddress: transport.remoteAddress, subprotocol: subprotocol,
                                                transport: transport))
                }
            })
        let upgradeConfiguration = NIOTypedHTTPServerUpgradeConfiguration<Outcome>(
            upgraders: [upgrader],
            notUpgradingCompletionHandler: { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(HTTPRefusalResponder(verdict: verdict.value, policy: policy))
                    return .refused
                }
            })
        return try channel.pipeline.syncOperations.configureUpgradableHTTPServerPipeline(
            configuration: NIOUpgradableHTTPServerPipelineConfiguration(upgradeConfiguration: upgradeConfiguration))
    }

    /// `host:port` for a log line.
    static func describe(_ address: SocketAddress?) -> String {
        guard let address else { return "an unknown address" }
        guard let ip = address.ipAddress, let port = address.port else { return "\(address)" }
        if case .v6 = address { return "[\(ip)]:\(port)" }
        return "\(ip):\(port)"
    }
}
