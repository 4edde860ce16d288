import LiteStorage
import LiteSupport

/// The indexers of one database file in the process (see ``DocumentIndexer``).
final class DocumentIndexers: Sendable {
    private struct State {
        var next: UInt64 = 1
        var byToken: [UInt64: any DocumentIndexer] = [:]
        var byName: [String: UInt64] = [:]
        /// `byToken`'s indexers in registration order (made on each change, not each read:
        /// every save and every query plan reads them).
        var ordered: [any DocumentIndexer] = []
        /// Changes with every registration and removal, unique in the process.
        var generation = DocumentIndexers.nextGeneration()

        mutating func changed() {
            ordered = byToken.sorted { $0.key < $1.key }.map(\.value)
            generation = DocumentIndexers.nextGeneration()
        }
    }
    private let state = Locked(State())
    private static let generations = Locked<UInt64>(0)

    private static func nextGeneration() -> UInt64 {
        generations.withLock { last in
            last += 1
            return last
        }
    }

    private static let registry = PerFileRegistry { DocumentIndexers() }

    /// The indexers of the database file at `path`.
    static func forPath(_ path: String) -> DocumentIndexers { registry.value(forPath: path) }

    func add(_ indexer: any DocumentIndexer) -> UInt64 {
        state.withLock { state in
            defer { state.next += 1 }
            state.byToken[state.next] = indexer
            state.changed()
            return state.next
        }
    }

    /// Registers `make()`'s indexer under `name` unless one is registered under it already
    /// (every instance of the file opens the same indexes; each must be maintained once).
    func add(named name: String, _ make: () throws -> any DocumentIndexer) rethrows -> any DocumentIndexer {
        try state.withLock { state in
            if let token = state.byName[name], let existing = state.byToken[token] { return existing }
            let indexer = try make()
            defer { state.next += 1 }
            state.byToken[state.next] = indexer
            state.byName[name] = state.next
            state.changed()
            return indexer
        }
    }

    /// The indexer registered under `name`, if any.
    func indexer(named name: String) -> (any DocumentIndexer)? {
        state.withLock { state in state.byName[name].flatMap { state.byToken[$0] } }
    }

    func remove(_ token: UInt64) {
        state.withLock { state in
            state.byToken.removeValue(forKey: token)
            state.byName = state.byName.filter { $0.value != token }
            state.changed()
        }
    }

    /// Unregisters the indexer named `name`.
    func remove(named name: String) {
        state.withLock { state in
            if let token = state.byName.removeValue(forKey: name) { state.byToken.removeValue(forKey: token) }
            state.changed()
        }
    }

    /// The registered indexers, in registration order.
    var all: [any DocumentIndexer] {
        state.withLock { $0.ordered }
    }

    /// A number that changes whenever an indexer is registered or removed, and that no other
    /// file's indexers have had in this process: what was worked out from ``all`` holds while
    /// it stays the same.
    var generation: UInt64 { state.withLock { $0.generation } }

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

    /// The indexer registered for this file under `name`, made with `make` when there is none
    /// yet (so every open instance shares one, and each change is indexed once).
    package func indexer(named name: String, orMake make: () throws -> any DocumentIndexer) rethrows -> any DocumentIndexer {
        try indexers.add(named: name, make)
    }

    /// The indexer registered under `name`, if any.
    package func indexer(named name: String) -> (any DocumentIndexer)? { indexers.indexer(named: name) }

    /// Every indexer registered for this file.
    package var registeredIndexers: [any DocumentIndexer] { indexers.all }

    /// Changes whenever an indexer of this file is registered or removed, and is never another
    /// file's: a query plan made from ``registeredIndexers`` holds while it stays the same.
    package var indexerGeneration: UInt64 { indexers.generation }

    /// Unregisters the indexer named `name`.
    package func removeIndexer(named name: String) { indexers.remove(named: name) }

    /// Tells every indexer about a change of a document's current revision, inside its
    /// transaction.
    func notifyIndexers(documentID: String, sequence: UInt64, oldBody: [UInt8]?, newBody: [UInt8]?,
                        txn: borrowing WriteTransaction) throws {
        guard !indexers.isEmpty else { return }
        let change = DocumentBodyChange(documentID: documentID, sequence: sequence, oldBody: oldBody, newBody: newBody)
        for indexer in indexers.all { try indexer.documentChanged(change, in: self, txn: txn) }
    }

    /// The document store's counters now (inside a transaction: including its writes so far).
    package func documentStoreState() throws -> DocumentStoreState {
        DocumentStoreState(lastSequence: try documents.lastSequence(), purgeCount: try documents.purgeCount())
    }

    /// Tells every indexer that the transaction which began at `before` is about to commit,
    /// when it changed the document store's counters.
    func notifyIndexersOfCommit(from before: DocumentStoreState?, txn: borrowing WriteTransaction) throws {
        guard let before, !indexers.isEmpty else { return }
        let after = try documentStoreState()
        guard after != before else { return }
        for indexer in indexers.all { try indexer.transactionWillCommit(from: before, to: after, in: self, txn: txn) }
    }

    /// Rebuilds every index of the file from the documents, in one transaction.
    ///
    /// - Returns: how many indexers rebuilt.
    @discardableResult
    package func reindex() throws -> Int {
        try inTransaction { txn in
            let all = indexers.all
            for indexer in all { try indexer.rebuild(in: self, txn: txn) }
            return all.count
        }
    }
}
