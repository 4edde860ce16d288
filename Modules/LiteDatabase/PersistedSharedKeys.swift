import Fleece
import LiteStorage
import LiteSupport

/// The shared-key table of one database file and what is known of its persisted copy (the
/// `SharedKeys` record of the `info` store), kept equal to it across transactions, instances
/// and processes.
///
/// Keys are only added inside a write transaction, and every change to the table's contents
/// other than an append happens while the caller holds the file's write lock
/// (``beginTransaction(info:)``, ``abortTransaction()``), so no transaction can drop keys
/// another one committed.
final class PersistedSharedKeys: Sendable {
    /// The table every instance of the file in this process encodes and decodes with.
    let keys: SharedKeys

    private struct Known {
        /// The sequence of the persisted record the table matches (0: no record yet).
        var sequence: UInt64
        /// How many keys that record holds.
        var count: Int
        /// Set when a commit that wrote the record may have failed: reload before trusting.
        var doubtful = false
    }
    private let known: Locked<Known>
    /// The `info` stores of the instances that have the file open, for refreshing.
    private let infoStores = Locked<[(owner: ObjectIdentifier, store: any KeyStore)]>([])

    /// Loads the table from `info`.
    init(info: any KeyStore) throws {
        let record = try info.get(DatabaseCore.InfoKeys.sharedKeys)
        let persisted = try Self.keys(in: record)
        keys = SharedKeys(keys: persisted)
        known = Locked(Known(sequence: record?.sequence ?? 0, count: persisted.count))
        keys.setRefresher { [weak self] in self?.refreshFromOpenInstance() }
    }

    /// An instance opened the file: its `info` store can serve refreshes.
    func attach(_ owner: AnyObject, info: any KeyStore) {
        infoStores.withLock { $0.append((ObjectIdentifier(owner), info)) }
    }

    /// An instance closed the file.
    func detach(_ owner: AnyObject) {
        infoStores.withLock { $0.removeAll { $0.owner == ObjectIdentifier(owner) } }
    }

    private func refreshFromOpenInstance() {
        guard let info = infoStores.withLock({ $0.last?.store }) else { return }
        refresh(info: info)
    }

    private static func keys(in record: Record?) throws -> [String] {
        guard let record else { return [] }
        do {
            return try SharedKeys.persistedKeys(record.body)
        } catch {
            throw DatabaseError(.corruptData, "the shared-key table is corrupt", underlying: error)
        }
    }

    /// At the start of a write transaction (the caller holds the write lock): drops keys a
    /// failed transaction left, and loads keys another process (or a commit this process could
    /// not confirm) wrote since the table was last synchronised.
    ///
    /// - Returns: the key count to revert to if the transaction fails.
    func beginTransaction(info: any KeyStore) throws -> Int {
        let current = try info.get(DatabaseCore.InfoKeys.sharedKeys, content: .metaOnly)
        return try known.withLock { known in
            let sequence = current?.sequence ?? 0
            if sequence == known.sequence, !known.doubtful, keys.count == known.count { return known.count }
            let persisted = try Self.keys(in: current == nil ? nil : info.get(DatabaseCore.InfoKeys.sharedKeys))
            keys.reload(keys: persisted)
            known = Known(sequence: sequence, count: persisted.count)
            return persisted.count
        }
    }

    /// Inside the transaction, after writing the table as persisted record `sequence`.
    func didPersist(sequence: UInt64, count: Int) {
        known.withLock { $0 = Known(sequence: sequence, count: count, doubtful: true) }
    }

    /// The transaction that persisted record `sequence` committed.
    func commitConfirmed(sequence: UInt64) {
        known.withLock { known in
            // A later transaction may already have persisted again; its doubt stays.
            if known.sequence == sequence { known.doubtful = false }
        }
    }

    /// Inside a failing transaction (the caller still holds the write lock): forgets the keys
    /// it added.
    func abortTransaction(revertingTo count: Int) {
        known.withLock { known in
            keys.revert(toCount: count)
            known.doubtful = true
        }
    }

    /// The commit failed after the write lock was released: the next transaction reloads.
    func commitFailed() {
        known.withLock { $0.doubtful = true }
    }

    /// For a reader that met an integer key the table lacks: appends the keys another process
    /// persisted since, when the persisted table extends this one (it never drops keys here,
    /// since this runs outside the write lock).
    func refresh(info: any KeyStore) {
        do {
            guard let record = try info.get(DatabaseCore.InfoKeys.sharedKeys) else { return }
            try known.withLock { known in
                guard record.sequence != known.sequence else { return }
                let persisted = try Self.keys(in: record)
                let mine = keys.keys
                guard persisted.count > mine.count, Array(persisted[..<mine.count]) == mine else { return }
                keys.reload(keys: persisted)
                known = Known(sequence: record.sequence, count: persisted.count)
            }
        } catch {
            DatabaseLog.warning("cannot reload the shared-key table: \(error)")
        }
    }
}
