/// Another local database as the replication target: the two databases sync in-process over
/// the same protocol as a network replication, without a socket.
///
/// ```swift
/// let config = ReplicatorConfiguration(database: phone, target: DatabaseEndpoint(database: backup))
/// ```
public struct DatabaseEndpoint: Endpoint {
    /// The target database.
    public let database: Database

    /// Creates an endpoint for `database`.
    public init(database: Database) {
        self.database = database
    }
}
