import CouchbaseLiteSwift
import Foundation
import TestSupport

/// Every pairing of a source engine with a target engine.
let enginePairs: [(StorageEngineKind, StorageEngineKind)] = StorageEngineKind.allCases.flatMap { source in
    StorageEngineKind.allCases.map { (source, $0) }
}

/// Opens two new databases, "source" and "target", with the given engines in one directory.
func withTwoDatabases<T>(_ engines: (StorageEngineKind, StorageEngineKind),
                         _ body: (Database, Database, TemporaryDirectory) async throws -> T) async throws -> T {
    let directory = try TemporaryDirectory()
    defer { withExtendedLifetime(directory) {} }
    let source = try Database(name: "source", config: engines.0.config(in: directory))
    let target = try Database(name: "target", config: engines.1.config(in: directory))
    defer {
        try? source.close()
        try? target.close()
    }
    return try await body(source, target, directory)
}

extension Replicator {
    /// Starts the replicator and returns its final status (one-shot replicators stop by
    /// themselves; the status stream ends with `.stopped`).
    func runToCompletion() async -> Status {
        let statuses = statusChanges()
        start()
        var last = status
        for await status in statuses { last = status }
        return last
    }

    /// Starts the replicator and returns once it reports `activity`, or stopped.
    func startAndWait(for activity: ActivityLevel) async -> Status {
        let statuses = statusChanges()
        start()
        for await status in statuses where status.activity == activity || status.activity == .stopped {
            return status
        }
        return status
    }
}

/// A replicator between two local databases.
func localReplicator(_ source: Database, _ target: Database, _ type: ReplicatorType = .pushAndPull,
                     continuous: Bool = false, configure: (ReplicatorConfiguration) -> Void = { _ in }) -> Replicator {
    let config = ReplicatorConfiguration(database: source, target: DatabaseEndpoint(database: target))
    config.replicatorType = type
    config.continuous = continuous
    configure(config)
    return Replicator(config: config)
}

/// Every document as (ID → (revision ID, JSON)), deletions as ("deleted", revision).
func snapshot(_ database: Database) throws -> [String: String] {
    var result: [String: String] = [:]
    let query = QueryBuilder.select(SelectResult.expression(Meta.id)).from(DataSource.database(database))
    for row in try query.execute() {
        guard let id = row.string(at: 0), let document = database.document(withID: id) else { continue }
        result[id] = "\(document.revisionID ?? "?") \(document.toJSON())"
    }
    return result
}
