import Fleece
import Synchronization

/// One shared-key table per database file in the process, so that every open instance of the
/// same database encodes and decodes with the same table (a key added by one instance is known
/// to the others at once).
///
/// A table is lent only while some instance has the file open: once the last one closes, the
/// next open reads the table from the file again, because the file may have been replaced
/// meanwhile (deleted and recreated, or converted to another engine and back) while a closed
/// instance still holds the old table.
final class SharedKeysRegistry: Sendable {
    static let shared = SharedKeysRegistry()

    private final class Entry: @unchecked Sendable {
        // @unchecked: only read and written under the registry's lock.
        weak var keys: SharedKeys?
        var openCount = 0
        init(_ keys: SharedKeys) { self.keys = keys }
    }

    private let tables = Mutex<[String: Entry]>([:])

    /// The table for the file at `path`, loaded with `load` when no open instance has one.
    /// Every successful call must be matched by one ``release(path:)`` when that instance closes.
    func keys(forPath path: String, load: () throws -> SharedKeys) throws -> SharedKeys {
        if let existing = retainExisting(path) { return existing }
        let loaded = try load()
        return tables.withLock { tables in
            if let entry = tables[path], let existing = entry.keys, entry.openCount > 0 {
                entry.openCount += 1
                return existing
            }
            tables = tables.filter { $0.value.keys != nil && $0.value.openCount > 0 }
            let entry = Entry(loaded)
            entry.openCount = 1
            tables[path] = entry
            return loaded
        }
    }

    private func retainExisting(_ path: String) -> SharedKeys? {
        tables.withLock { tables in
            guard let entry = tables[path], let keys = entry.keys, entry.openCount > 0 else { return nil }
            entry.openCount += 1
            return keys
        }
    }

    /// An instance that got its table from ``keys(forPath:load:)`` has closed.
    func release(path: String) {
        tables.withLock { tables in
            guard let entry = tables[path] else { return }
            entry.openCount -= 1
            if entry.openCount <= 0 { tables[path] = nil }
        }
    }
}
