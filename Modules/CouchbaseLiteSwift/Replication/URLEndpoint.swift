import Foundation

/// A remote database reached over the network: a Sync Gateway database or a listener,
/// `ws://host:port/db` or `wss://host:port/db`.
///
/// ```swift
/// let target = URLEndpoint(url: URL(string: "ws://localhost:4984/travel")!)
/// ```
public struct URLEndpoint: Endpoint {
    /// The database's URL (scheme `ws` or `wss`).
    public let url: URL

    /// Creates an endpoint for `url`; the scheme must be `ws` or `wss` (checked when a
    /// replicator is made with it).
    public init(url: URL) {
        self.url = url
    }
}
