import LiteStorage
import LiteSupport

/// Delivers the IDs of changed documents to every observer of one database file in the
/// process, so that a change made through one open instance is seen by the others too.
final class ChangeNotifier: Sendable {
    typealias Observer = @Sendable ([String]) -> Void

    private struct State {
        var nextToken: UInt64 = 1
        var observers: [UInt64: Observer] = [:]
    }
    private let state = Locked(State())

    private static let registry = PerFileRegistry { ChangeNotifier() }

    /// The notifier of the database file at `path`.
    static func forPath(_ path: String) -> ChangeNotifier { registry.value(forPath: path) }

    func add(_ observer: @escaping Observer) -> UInt64 {
        state.withLock { state in
            let token = state.nextToken
            state.nextToken += 1
            state.observers[token] = observer
            return token
        }
    }

    func remove(_ token: UInt64) {
        _ = state.withLock { $0.observers.removeValue(forKey: token) }
    }

    func post(_ documentIDs: [String]) {
        let observers = state.withLock { Array($0.observers.values) }
        for observer in observers { observer(documentIDs) }
    }
}

extension DatabaseCore {
    /// Registers `observer`, called after each committed transaction (by any open instance of
    /// this database in the process) with the IDs of the documents it changed, in order.
    ///
    /// The observer runs on the committing thread: hand work to a queue, do not block.
    package func addChangeObserver(_ observer: @escaping @Sendable ([String]) -> Void) -> UInt64 {
        notifier.add(observer)
    }

    /// Removes an observer registered with ``addChangeObserver(_:)``.
    package func removeChangeObserver(_ token: UInt64) {
        notifier.remove(token)
    }
}
