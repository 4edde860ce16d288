import Fleece
import LiteStorage
import LiteSupport

/// One shared-key table per database file in the process, so that every open instance of the
/// same database encodes and decodes with the same table (a key added by one instance is known
/// to the others at once). Files are identified by their canonical path, the same one the
/// storage layer's write lock uses, so two spellings of one directory share a table.
///
/// A table is lent only while some instance has the file open: once the last one closes, the
/// next open reads the table from the file again, because the file may have been replaced
/// meanwhile (deleted and recreated, or converted to another engine and back) while a closed
/// instance still holds the old table.
final class SharedKeysRegistry: Sendable {
    static let shared = SharedKeysRegistry()

    private struct Entry {
        let table: PersistedSharedKeys
        var openCount: Int
    }

    private let tables = Locked<[String: Entry]>([:])

    /// The table for the file at `path`, loaded with `load` when no open instance has one.
    /// Every successful call must be matched by one ``release(path:)`` when that instance closes.
    func table(forPath path: String, load: () throws -> PersistedSharedKeys) throws -> PersistedSharedKeys {
        let key = SharedFile.canonicalPath(path)
        if let existing = retainExisting(key) { return existing }
        let loaded = try load()
        return tables.withLock { tables in
            if var entry = tables[key] {
                entry.openCount += 1
                tables[key] = entry
                return entry.table
            }
            tables[key] = Entry(table: loaded, openCount: 1)
            return loaded
        }
    }

    private func retainExisting(_ key: String) -> PersistedSharedKeys? {
        tables.withLock { tables in
            guard var entry = tables[key] else { return nil }
            entry.openCount += 1
            tables[key] = entry
            return entry.table
        }
    }

    /// An instance that got its table from ``table(forPath:load:)`` has closed.
    func release(path: String) {
        let key = SharedFile.canonicalPath(path)
        tables.withLock { tables in
            guard var entry = tables[key] else { return }
            entry.openCount -= 1
            tables[key] = entry.openCount <= 0 ? nil : entry
        }
    }
}
