/// A Couchbase Lite 2.x error number: the codes of `CBLErrorDomain`, which are LiteCore's, plus
/// the ranges replication errors are carried in. This is the project's one table of them: every
/// module's error names its number here (``CodedError``), and the public API's
/// `CouchbaseLiteError.Code` and `CBLError…` constants take their values from it.
package struct CBLErrorCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The number.
    package let rawValue: Int
    /// Wraps a number.
    package init(rawValue: Int) { self.rawValue = rawValue }

    /// 1: an internal assertion failed (a bug).
    package static let assertionFailed = Self(rawValue: 1)
    /// 2: not implemented.
    package static let unimplemented = Self(rawValue: 2)
    /// 3: the encryption algorithm is not supported.
    package static let unsupportedEncryption = Self(rawValue: 3)
    /// 4: a revision ID is malformed.
    package static let badRevisionID = Self(rawValue: 4)
    /// 5: a revision's data is corrupt.
    package static let corruptRevisionData = Self(rawValue: 5)
    /// 6: the database (or file) is not open.
    package static let notOpen = Self(rawValue: 6)
    /// 7: not found.
    package static let notFound = Self(rawValue: 7)
    /// 8: the document or record changed since it was read.
    package static let conflict = Self(rawValue: 8)
    /// 9: an argument is not acceptable.
    package static let invalidParameter = Self(rawValue: 9)
    /// 10: a failure with no better number.
    package static let unexpectedError = Self(rawValue: 10)
    /// 11: a file could not be opened.
    package static let cantOpenFile = Self(rawValue: 11)
    /// 12: reading or writing a file failed.
    package static let ioError = Self(rawValue: 12)
    /// 13: memory could not be allocated.
    package static let memoryError = Self(rawValue: 13)
    /// 14: the file or database is read-only.
    package static let notWriteable = Self(rawValue: 14)
    /// 15: the data is corrupt.
    package static let corruptData = Self(rawValue: 15)
    /// 16: another writer or process holds the database.
    package static let busy = Self(rawValue: 16)
    /// 17: the call needs a transaction.
    package static let notInTransaction = Self(rawValue: 17)
    /// 18: a transaction is still open.
    package static let transactionNotClosed = Self(rawValue: 18)
    /// 19: not supported here or in this state.
    package static let unsupported = Self(rawValue: 19)
    /// 20: the file is not a database (or its encryption key is wrong).
    package static let notADatabaseFile = Self(rawValue: 20)
    /// 21: the database is not in the format or engine asked for.
    package static let wrongFormat = Self(rawValue: 21)
    /// 22: encryption or decryption failed.
    package static let crypto = Self(rawValue: 22)
    /// 23: the query is invalid.
    package static let invalidQuery = Self(rawValue: 23)
    /// 24: the query needs an index that does not exist.
    package static let missingIndex = Self(rawValue: 24)
    /// 25: a query parameter is invalid.
    package static let invalidQueryParam = Self(rawValue: 25)
    /// 26: the remote peer reported an error.
    package static let remoteError = Self(rawValue: 26)
    /// 27: the database is older than 2.x and must be upgraded.
    package static let databaseTooOld = Self(rawValue: 27)
    /// 28: the database was written by a newer version.
    package static let databaseTooNew = Self(rawValue: 28)
    /// 29: a document ID is invalid.
    package static let badDocID = Self(rawValue: 29)
    /// 30: the database could not be upgraded.
    package static let cantUpgradeDatabase = Self(rawValue: 30)

    /// Network failures are 5000 + the failure's number.
    package static let networkBase = Self(rawValue: 5000)
    /// HTTP statuses are 10000 + the status.
    package static let httpBase = Self(rawValue: 10000)
    /// WebSocket close codes are 11000 + (the close code − 1000), i.e. 10000 + the close code.
    package static let webSocketBase = Self(rawValue: 11000)

    /// The number, e.g. `CBLErrorDomain 7`.
    package var description: String { "CBLErrorDomain \(rawValue)" }
}
