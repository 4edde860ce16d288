import LiteStorage
import LiteSupport
/// Why a Couchbase Lite 1.x database could not be recognised, refused, or read.
///
/// Every error names the file (and the document, when one is at fault) and says what a person
/// can do about it. `underlying` carries the cause (a SQLite or file-system error) when there is
/// one. ``Code/liteCoreCode`` gives the matching `CBLErrorDomain` number for the public API.
package struct UpgraderError: Error, CustomStringConvertible {
    /// The kind of failure, stable for callers to switch on.
    package enum Code: Sendable, Hashable {
        /// A 1.x ForestDB bundle (`db.forest.*`): only 1.x SQLite databases can be upgraded.
        case forestDB
        /// An encrypted (SQLCipher) database: its header is not readable.
        case encrypted
        /// A pre-1.2 single-file database (`*.cblite`), or a 1.x schema version below 100.
        case databaseTooOld
        /// A schema version above the 1.x range (150–200) that this upgrader does not know.
        case unsupportedSchemaVersion
        /// The path holds no database, or a file that is not a SQLite database.
        case notADatabase
        /// A SQLite database that is truncated or damaged, or lacks the 1.x tables.
        case corrupt
        /// A document's revision ID is not `<generation>-<lowercase hex>`.
        case invalidRevisionID
        /// A document's stored body is not a JSON object.
        case invalidBody
        /// The bundle already holds a 2.x database: there is nothing to upgrade.
        case alreadyUpgraded
        /// Copying or reading files failed (permissions, disk full, …).
        case fileSystem
        /// Building, checking or installing the 2.x database failed; the 1.x original is intact.
        case upgradeFailed

        /// The 2.x number Couchbase Lite gives this failure.
        package var errorCode: CBLErrorCode {
            switch self {
            case .invalidRevisionID: .badRevisionID
            case .invalidBody: .corruptRevisionData
            case .fileSystem: .ioError
            case .corrupt: .corruptData
            case .notADatabase, .encrypted: .notADatabaseFile
            case .forestDB, .alreadyUpgraded: .wrongFormat
            case .databaseTooOld: .databaseTooOld
            case .unsupportedSchemaVersion, .upgradeFailed: .cantUpgradeDatabase
            }
        }
    }

    /// The kind of failure.
    package let code: Code
    /// What happened and what to do, for a person.
    package let message: String
    /// The database file or bundle concerned.
    package let path: String
    /// The document at fault, for ``Code/invalidRevisionID`` and ``Code/invalidBody``.
    package let documentID: String?
    /// The schema version found (`PRAGMA user_version`), when it is the problem.
    package let schemaVersion: Int?
    /// The cause, when there is one.
    package let underlying: (any Error)?

    /// Creates an error; `message` should already name the thing and the problem.
    package init(_ code: Code, _ message: String, path: String, documentID: String? = nil,
                 schemaVersion: Int? = nil, underlying: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.path = path
        self.documentID = documentID
        self.schemaVersion = schemaVersion
        self.underlying = underlying
    }

    /// The message, followed by the cause when there is one.
    package var description: String { ErrorChain.describe(message, cause: underlying) }
}

extension UpgraderError: CodedError {
    /// The error that caused this one.
    package var cause: (any Error)? { underlying }
    /// The 2.x number of the code.
    package var errorCode: CBLErrorCode { code.errorCode }
}
