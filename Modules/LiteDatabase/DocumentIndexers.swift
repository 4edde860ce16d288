import LiteSupport

/// The indexers of one database file in the process (see ``DocumentIndexer``).
final class DocumentIndexers: Sendable {
    private struct State {
        var next: UInt64 = 1
        var byToken: [UInt64: any DocumentIndexer] = [:]
    }
    private let state = Locked(State())

    private static let registry = PerFileRegistry { DocumentIndexers() }

    /// The indexers of the database file at `path`.
    static func forPath(_ path: String) -> DocumentIndexers { registry.value(forPath: path) }

    func add(_ indexer: any DocumentIndexer) -> UInt64 {
        state.withLock { state in
            defer { state.next += 1 }
            state.byToken[state.next] = indexer
            return state.next
        }
    }

    func remove(_ token: UInt64) {
        _ = state.withLock { $0.byToken.removeValue(forKey: token) }
    }

    /// The registered indexers, in registration order.
    var all: [any DocumentIndexer] {
        state.withLock { state in state.byToken.sorted { $0.key < $1.key }.map(\.value) }
    }

    var isEmpty: Bool { state.withLock { $0.byToken.isEmpty } }
}

extension DatabaseCore {
    /// Registers `indexer` for this database file (every open instance calls it) until
    /// ``removeIndexer(_:)``.
    package func addIndexer(_ indexer: any DocumentIndexer) -> UInt64 {
        indexers.add(indexer)
    }

    /// Unregisters an indexer.
    package func removeIndexer(_ token: UInt64) {
        indexers.remove(token)
    }

    /// Tells every indexer about a change of a document's current revision, inside its
    /// transaction.
    func notifyIndexers(documentID: String, sequence: UInt64, oldBody: [UInt8]?, newBody: [UInt8]?) throws {
        guard !indexers.isEmpty else { return }
        let change = DocumentBodyChange(documentID: documentID, sequence: sequence, oldBody: oldBody, newBody: newBody)
        for indexer in indexers.all { try indexer.documentChanged(change, in: self) }
    }

    /// Rebuilds every index of the file from the documents, in one transaction.
    ///
    /// - Returns: how many indexers rebuilt.
    @discardableResult
    package func reindex() throws -> Int {
        try inTransaction {
            let all = indexers.all
            for indexer in all { try indexer.rebuild(in: self) }
            return all.count
        }
    }
}
