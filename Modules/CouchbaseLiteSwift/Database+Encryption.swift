import DatabaseConversion
import Foundation
import LiteDatabase
import LiteSupport

extension Database {
    /// Encrypts the database with a new key, or with `nil` removes its encryption: the data file
    /// and every blob are re-encrypted, and the database stays open under the new key.
    ///
    /// The change is crash-safe: a process killed at any point leaves a database that opens with
    /// the old key or the new one, with every committed document and blob (the next open
    /// finishes or undoes the change). Open the database with the new key from then on.
    ///
    /// ```swift
    /// try database.changeEncryptionKey(.password("a new passphrase"))
    /// ```
    ///
    /// - Throws: `CouchbaseLiteError` — `.notOpen` once closed; `.busy` inside a batch, while a
    ///   replicator or listener uses the database, or while another `Database` instance (in this
    ///   or another process) has it open; `.invalidParameter` for a raw key that is not 32 bytes.
    ///   On a failure the database is open again under its old key (or, when only reopening
    ///   failed after the change was complete, closed, with its files under the new key).
    public func changeEncryptionKey(_ key: EncryptionKey?) throws {
        let context = "changing the encryption key of database \"\(name)\""
        let newKey = try CouchbaseLiteError.wrapping(context) { try key?.aes256Key() }
        let changed = try CouchbaseLiteError.wrapping(context) {
            // Other calls through this instance wait here for the reopened core.
            try opened.withLock { opened -> Bool in
                let core = opened.core
                try core.checkOpen()
                guard !core.dataFile.isInTransaction else {
                    throw CouchbaseLiteError(.busy, "cannot change the encryption key inside a batch")
                }
                guard opened.replicationUsers == 0 else {
                    throw CouchbaseLiteError(.busy, "cannot change the encryption key while \(opened.replicationUsers) "
                                             + "replicator(s) or listener(s) use the database; stop them first")
                }
                guard opened.encryptionKey != newKey else { return false }
                try core.close()
                do {
                    try EncryptionKeyChange.change(bundlePath: core.bundle.path, registry: Self.engines,
                                                   from: opened.encryptionKey, to: newKey)
                } catch {
                    // Undone (or, past its commit point, finished) by the change's own recovery: the
                    // files open with one of the keys, normally the old one.
                    Self.log.log(.error, .database, "Changing the encryption key of \"\(name)\" failed: \(error)")
                    for candidate in [opened.encryptionKey, newKey] {
                        guard let core = try? reopen(core.bundle, encryptionKey: candidate) else { continue }  // allowed: the other key is tried; the change's error is thrown
                        (opened.core, opened.encryptionKey) = (core, candidate)
                        break
                    }
                    throw error
                }
                // Committed: if the files cannot be reopened, the database stays closed and says why.
                opened.core = try reopen(core.bundle, encryptionKey: newKey)
                opened.encryptionKey = newKey
                return true
            }
        }
        guard changed else { return }
        Self.log.log(.info, .database, newKey == nil ? "Removed the encryption of database \"\(name)\""
                     : "Changed the encryption key of database \"\(name)\"")
    }

    private func reopen(_ bundle: DatabaseBundle, encryptionKey: AES256Key?) throws -> DatabaseCore {
        let core = try DatabaseCore(bundle: bundle, registry: Self.engines, engineName: nil, create: false,
                                    encryptionKey: encryptionKey)
        try Self.startIndexesAndHousekeeping(of: core, name: name)
        return core
    }

    /// Counts a replicator or listener that uses the database from now on (a key change waits
    /// for none to be).
    func beginReplicationUse() {
        opened.withLock { $0.replicationUsers += 1 }
    }

    /// Ends a use counted by ``beginReplicationUse()``.
    func endReplicationUse() {
        opened.withLock { $0.replicationUsers = max(0, $0.replicationUsers - 1) }
    }
}
