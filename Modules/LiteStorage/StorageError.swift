import LiteSupport

/// The error every storage engine throws: a code to match on, a message naming the file or
/// store and the problem, and the underlying cause when there is one.
///
/// Errors compare equal when their codes are equal, so tests can match a kind of failure:
///
/// ```swift
/// #expect(throws: StorageError.conflict) { try file.write { txn in try store.set(record, ifSequence: 7, in: txn) } }
/// ```
package struct StorageError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is: a Couchbase Lite 2.x number (conflict, notFound,
    /// notADatabaseFile, corruptData, notWriteable, notOpen, busy, ioError, unexpectedError for an
    /// engine failure with no better number, …).
    package typealias Code = CBLErrorCode

    /// The kind of failure.
    package let code: Code
    /// What happened and what to do about it, for a person.
    package let message: String
    /// The schema version found, for `databaseTooOld` and `databaseTooNew`.
    package let schemaVersion: Int?
    /// The cause reported by the engine or the system, when there is one.
    package let underlying: (any Error & Sendable)?

    /// Makes an error.
    package init(_ code: Code, _ message: String, schemaVersion: Int? = nil,
                 underlying: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message
        self.schemaVersion = schemaVersion
        self.underlying = underlying
    }

    /// The message, then what its cause adds (each fact once, engine codes last).
    package var description: String { ErrorChain.describe(message, cause: underlying) }

    /// A pattern for matching conflicts in tests and callers.
    package static let conflict = StorageError(.conflict, "the record changed since it was read")
    /// A pattern for matching "not a database".
    package static let notADatabase = StorageError(.notADatabaseFile, "not a database")
    /// A pattern for matching "corrupt".
    package static let corrupt = StorageError(.corruptData, "the file is damaged")
    /// A pattern for matching "database too old".
    package static let databaseTooOld = StorageError(.databaseTooOld, "the database is too old")
    /// A pattern for matching "database too new".
    package static let databaseTooNew = StorageError(.databaseTooNew, "the database is too new")
    /// A pattern for matching writes outside a transaction.
    package static let notInTransaction = StorageError(.notInTransaction, "not in a transaction")
    /// A pattern for matching writes to a read-only file.
    package static let readOnly = StorageError(.notWriteable, "the file is read-only")
    /// A pattern for matching "not found".
    package static let notFound = StorageError(.notFound, "not found")
    /// A pattern for matching use after close.
    package static let closed = StorageError(.notOpen, "the data file is closed")
}

extension StorageError: CodedError {
    /// The cause reported by the engine or the system.
    package var cause: (any Error)? { underlying }
    /// The code, which is already a 2.x number.
    package var errorCode: CBLErrorCode { code }
}

extension StorageError: Equatable {
    /// Errors are equal when their codes are: the message and cause describe one occurrence.
    package static func == (lhs: StorageError, rhs: StorageError) -> Bool { lhs.code == rhs.code }
}
