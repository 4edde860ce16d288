import BLIP
import Foundation
import Testing
@testable import BLIPWebSocket

/// A running ``BLIPWebSocketServer`` on 127.0.0.1 and a free port whose handler echoes every
/// frame back, and reports what happens to each connection.
final class EchoServer: Sendable {
    /// What the server's handler saw, in order.
    enum Event: Sendable {
        case connected(database: String, headers: HTTPHeaderFields, remoteAddress: String?)
        /// The connection's `incoming` ended: normally (nil) or with this error.
        case incomingEnded(BLIPWebSocketError?)
    }

    let server: BLIPWebSocketServer
    let events: AsyncStream<Event>

    /// Starts a server. `onConnect` runs before echoing starts (to send something first). The
    /// server's deadlines stretch by ``TestTimeScale``.
    init(options: BLIPWebSocketServerOptions = BLIPWebSocketServerOptions(),
         onConnect: @escaping @Sendable (WebSocketBLIPTransport) async throws -> Void = { _ in }) async throws {
        let (events, continuation) = AsyncStream.makeStream(of: Event.self)
        self.events = events
        server = BLIPWebSocketServer(options: options.scaledForTests) { connection in
            continuation.yield(.connected(database: connection.databaseName, headers: connection.headers,
                                          remoteAddress: connection.remoteAddress))
            let transport = connection.transport
            do {
                try await onConnect(transport)
                for try await frame in transport.incoming { try await transport.send(frame) }
                continuation.yield(.incomingEnded(nil))
            } catch {
                continuation.yield(.incomingEnded(error as? BLIPWebSocketError ?? .connectionLost))
            }
        }
        _ = try await server.start()
    }

    func url(_ database: String = "db") throws -> URL {
        try #require(server.url(forDatabase: database))
    }

    /// `<scheme>://<host>:<port><path>` for this server.
    func url(scheme: String = "ws", host: String = "127.0.0.1", path: String) throws -> URL {
        let port = try #require(server.port)
        return try #require(URL(string: "\(scheme)://\(host):\(port)\(path)"))
    }

    /// The next event the handler reported.
    func nextEvent() async -> Event? {
        for await event in events { return event }
        return nil
    }

    /// Waits for the next `incomingEnded` event, skipping `connected` ones.
    func nextIncomingEnd() async -> BLIPWebSocketError?? {
        for await event in events {
            if case .incomingEnded(let error) = event { return .some(error) }
        }
        return nil
    }
}

/// The error `body` throws, as a ``BLIPWebSocketError`` (nil when it returns or throws another).
func webSocketError(_ body: () async throws -> Void) async -> BLIPWebSocketError? {
    do {
        try await body()
        return nil
    } catch {
        return error as? BLIPWebSocketError
    }
}

/// Reads `incoming` to its end: the frames, and the error it ended with (nil when it finished).
func drain(_ transport: WebSocketBLIPTransport) async -> (frames: [[UInt8]], error: BLIPWebSocketError?) {
    var frames: [[UInt8]] = []
    do {
        for try await frame in transport.incoming { frames.append(frame) }
        return (frames, nil)
    } catch {
        return (frames, error as? BLIPWebSocketError ?? .connectionLost)
    }
}
