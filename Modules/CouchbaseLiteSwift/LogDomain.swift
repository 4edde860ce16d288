/// The area a log message comes from, or `all` of them when setting a level.
///
/// The raw values are Couchbase Lite 2.5+'s bits, so `LogDomains(rawValue: Int(domain.rawValue))`
/// is the set holding one domain.
public enum LogDomain: UInt8, Sendable, CaseIterable {
    /// Every domain (only meaningful when setting a level, as in
    /// `Database.setLogLevel(.verbose, domain: .all)`).
    case all = 31
    /// Opening, closing, upgrading, converting and maintaining databases; documents and blobs.
    case database = 1
    /// Queries and indexes.
    case query = 2
    /// Replication.
    case replicator = 4
    /// Network connections.
    case network = 8

    /// The domain's name in log lines and swift-log labels (`CouchbaseLite.Database`).
    var name: String {
        switch self {
        case .all: "All"
        case .database: "Database"
        case .query: "Query"
        case .replicator: "Replicator"
        case .network: "Network"
        }
    }

    /// The domains a message can come from (every case but `all`).
    static let messageDomains: [LogDomain] = [.database, .query, .replicator, .network]
}
