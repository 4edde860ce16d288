import Fleece
import Synchronization

/// One shared-key table per database file in the process, so that every open instance of the
/// same database encodes and decodes with the same table (a key added by one instance is known
/// to the others at once).
final class SharedKeysRegistry: Sendable {
    static let shared = SharedKeysRegistry()

    private final class WeakBox: @unchecked Sendable {
        // @unchecked: only read and written under the registry's lock.
        weak var keys: SharedKeys?
        init(_ keys: SharedKeys) { self.keys = keys }
    }

    private let tables = Mutex<[String: WeakBox]>([:])

    /// The table for the file at `path`, loaded with `load` when no open instance has one.
    func keys(forPath path: String, load: () throws -> SharedKeys) throws -> SharedKeys {
        if let existing = tables.withLock({ $0[path]?.keys }) { return existing }
        let loaded = try load()
        return tables.withLock { tables in
            if let existing = tables[path]?.keys { return existing }
            tables = tables.filter { $0.value.keys != nil }
            tables[path] = WeakBox(loaded)
            return loaded
        }
    }
}
