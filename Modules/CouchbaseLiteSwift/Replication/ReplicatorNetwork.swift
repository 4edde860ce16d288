import BLIP
import Foundation

/// Opens WebSocket connections for URL endpoints.
enum ReplicatorNetwork {
    static func connect(to endpoint: URLEndpoint, config: ReplicatorConfiguration) async throws
        -> (BLIPConnection, String, @Sendable () -> Void) {
        throw CouchbaseLiteError(.unsupported, "replicating with \(endpoint.url) needs the WebSocket transport")
    }
}
