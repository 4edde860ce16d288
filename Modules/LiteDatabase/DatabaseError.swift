import LiteStorage

/// An error from the database core, numbered as Couchbase Lite 2.x numbers its errors.
///
/// The codes are those of the 2.x `CBLErrorDomain` (which mirror LiteCore's), so the public
/// `CouchbaseLiteError` carries them over unchanged.
package struct DatabaseError: Error, Sendable, CustomStringConvertible {
    /// A 2.x `CBLErrorDomain` error number.
    package struct Code: RawRepresentable, Hashable, Sendable {
        /// The number.
        package let rawValue: Int
        /// Wraps a number.
        package init(rawValue: Int) { self.rawValue = rawValue }

        /// CBLErrorDomain 1: assertion failed.
        package static let assertionFailed = Code(rawValue: 1)
        /// CBLErrorDomain 2: unimplemented.
        package static let unimplemented = Code(rawValue: 2)
        /// CBLErrorDomain 4: bad revision ID.
        package static let badRevisionID = Code(rawValue: 4)
        /// CBLErrorDomain 5: corrupt revision data.
        package static let corruptRevisionData = Code(rawValue: 5)
        /// CBLErrorDomain 6: not open.
        package static let notOpen = Code(rawValue: 6)
        /// CBLErrorDomain 7: not found.
        package static let notFound = Code(rawValue: 7)
        /// CBLErrorDomain 8: conflict.
        package static let conflict = Code(rawValue: 8)
        /// CBLErrorDomain 9: invalid parameter.
        package static let invalidParameter = Code(rawValue: 9)
        /// CBLErrorDomain 10: unexpected error.
        package static let unexpectedError = Code(rawValue: 10)
        /// CBLErrorDomain 11: cant open file.
        package static let cantOpenFile = Code(rawValue: 11)
        /// CBLErrorDomain 12: I/O error.
        package static let ioError = Code(rawValue: 12)
        /// CBLErrorDomain 14: not writeable.
        package static let notWriteable = Code(rawValue: 14)
        /// CBLErrorDomain 15: corrupt data.
        package static let corruptData = Code(rawValue: 15)
        /// CBLErrorDomain 16: busy.
        package static let busy = Code(rawValue: 16)
        /// CBLErrorDomain 17: not in transaction.
        package static let notInTransaction = Code(rawValue: 17)
        /// CBLErrorDomain 19: unsupported.
        package static let unsupported = Code(rawValue: 19)
        /// CBLErrorDomain 20: not a database file.
        package static let notADatabaseFile = Code(rawValue: 20)
        /// CBLErrorDomain 21: wrong format.
        package static let wrongFormat = Code(rawValue: 21)
        /// CBLErrorDomain 23: invalid query.
        package static let invalidQuery = Code(rawValue: 23)
        /// CBLErrorDomain 27: database too old.
        package static let databaseTooOld = Code(rawValue: 27)
        /// CBLErrorDomain 28: database too new.
        package static let databaseTooNew = Code(rawValue: 28)
        /// CBLErrorDomain 29: bad document ID.
        package static let badDocID = Code(rawValue: 29)
        /// CBLErrorDomain 30: cant upgrade database.
        package static let cantUpgradeDatabase = Code(rawValue: 30)
    }

    /// What kind of failure this is.
    package let code: Code
    /// What happened and what to do about it, for a person.
    package let message: String
    /// The error that caused this one, if any.
    package let underlying: (any Error)?

    /// Makes an error.
    package init(_ code: Code, _ message: String, underlying: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.underlying = underlying
    }

    /// The message, then what its cause adds (each fact once, engine codes last).
    package var description: String { ErrorChain.describe(message, cause: underlying) }
}

extension DatabaseError: ChainedError {
    /// The error that caused this one.
    package var cause: (any Error)? { underlying }
}
