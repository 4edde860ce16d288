import Foundation
import LiteDatabase
import Upgrader

extension Database {
    /// Runs before the database files are opened: finishes an upgrade a crash interrupted,
    /// then upgrades a Couchbase Lite 1.x database in the bundle to 2.x (unless the
    /// configuration declines) and refuses the 1.x formats that cannot be upgraded. Anything
    /// else (no database yet, a 2.x database) is left for the normal open.
    ///
    /// - Throws: `CouchbaseLiteError` with the upgrader's code: `.databaseTooOld` when upgrades
    ///   are declined or the database predates 1.2, `.wrongFormat` for ForestDB,
    ///   `.notADatabaseFile` for encrypted or unreadable files, `.cantUpgradeDatabase` for an
    ///   unknown schema version or a failed upgrade, `.corruptData` / `.badRevisionID` /
    ///   `.corruptRevisionData` for damaged data.
    static func upgradeLegacyDatabase(in bundle: DatabaseBundle, config: DatabaseConfiguration) throws {
        do {
            try LegacyUpgrader.finishInterruptedUpgrade(at: bundle.path)
            var format = DatabaseFormat.detect(at: bundle.path)
            if case .absent = format {
                // A pre-1.2 database sits beside where the bundle would be (`<name>.cblite`):
                // refuse rather than silently create an empty database next to it.
                let singleFile = (bundle.directory as NSString).appendingPathComponent("\(bundle.name).cblite")
                format = DatabaseFormat.detect(at: singleFile)
            }
            switch format {
            case .absent, .currentSQLite, .currentEncryptedSQLite, .currentRocksDB:
                return
            case .unreadable where isEmptyFile(bundle), .unsupportedSchema(version: 0):
                // A 2.x database whose creation stopped before its schema was committed: no 1.x
                // release writes version 0 into a .cblite2 bundle; the engine handles it.
                return
            case .legacySQLite:
                if !config.upgradesLegacyDatabases, let declined = format.upgradeDeclined(path: bundle.path) {
                    throw declined
                }
                log.log(.info, .database, "Upgrading Couchbase Lite 1.x database \"\(bundle.name)\" at \(bundle.path) to 2.x")
                // The 2.x database is encrypted with the configured key from the start (a 1.x
                // database encrypted with SQLCipher is refused above, as unreadable).
                let upgrader = LegacyUpgrader(registry: engines, engineName: config.storageEngine?.engineName,
                                              encryptionKey: try config.encryptionKey?.aes256Key())
                guard let summary = try upgrader.upgradeInPlace(bundle) else { return }
                log.log(.info, .database, "Upgraded Couchbase Lite 1.x database \"\(bundle.name)\" to 2.x "
                    + "(\(summary.engineName)): \(summary.documentCount) documents, \(summary.copiedBlobCount) "
                    + "attachments, \(summary.skippedDocumentIDs.count) documents starting with '_' skipped")
                for missing in summary.missingAttachments {
                    log.log(.warning, .database, "1.x upgrade of \"\(bundle.name)\": attachment \"\(missing.name)\" "
                        + "of document \"\(missing.documentID)\" was not copied: \(missing.reason)")
                }
            default:
                if let refusal = format.refusal(path: bundle.path) { throw refusal }
            }
        } catch {
            throw CouchbaseLiteError(error)
        }
    }

    private static func isEmptyFile(_ bundle: DatabaseBundle) -> Bool {
        let file = (bundle.path as NSString).appendingPathComponent(DatabaseFormat.sqliteFileName)
        let size = (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? nil  // allowed: a file that cannot be read is not taken as empty
        return size == 0
    }
}
