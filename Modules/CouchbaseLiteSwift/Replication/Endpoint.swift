/// Where a replicator replicates to: a Sync Gateway or listener URL (``URLEndpoint``) or
/// another local database (``DatabaseEndpoint``).
public protocol Endpoint: Sendable {}
