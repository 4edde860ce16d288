/// The error every storage engine throws: a code to match on, a message naming the file or
/// store and the problem, and the underlying cause when there is one.
///
/// Errors compare equal when their codes are equal, so tests can match a kind of failure:
///
/// ```swift
/// #expect(throws: StorageError.conflict) { try file.write { txn in try store.set(record, ifSequence: 7, in: txn) } }
/// ```
package struct StorageError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is.
    package struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The numeric code.
        package let rawValue: Int
        /// Wraps a numeric code.
        package init(rawValue: Int) { self.rawValue = rawValue }

        /// A record or store does not exist.
        package static let notFound = Code(rawValue: 1)
        /// An MVCC write found a different sequence than the one expected.
        package static let conflict = Code(rawValue: 2)
        /// The file is not a database of this engine (wrong format, other engine, foreign schema).
        package static let notADatabase = Code(rawValue: 3)
        /// The file is damaged or truncated.
        package static let corrupt = Code(rawValue: 4)
        /// The file's schema is older than 2.x (Couchbase Lite 1.x): it must be upgraded.
        package static let databaseTooOld = Code(rawValue: 5)
        /// The file was written by a newer version than this code understands.
        package static let databaseTooNew = Code(rawValue: 6)
        /// A write was attempted outside `write { … }`.
        package static let notInTransaction = Code(rawValue: 7)
        /// A write was attempted on a file opened read-only.
        package static let readOnly = Code(rawValue: 8)
        /// The data file has been closed.
        package static let closed = Code(rawValue: 9)
        /// Another process or writer holds the file.
        package static let busy = Code(rawValue: 10)
        /// An argument is not acceptable (an empty store name, a bad range).
        package static let invalidParameter = Code(rawValue: 11)
        /// The operation is not possible in the current state (closing during a transaction).
        package static let unsupported = Code(rawValue: 12)
        /// The engine reported a failure this module has no better code for.
        package static let engineFailure = Code(rawValue: 13)
        /// The file or folder could not be read, written or created.
        package static let ioFailure = Code(rawValue: 14)

        /// The code's name.
        package var description: String {
            switch self {
            case .notFound: "notFound"
            case .conflict: "conflict"
            case .notADatabase: "notADatabase"
            case .corrupt: "corrupt"
            case .databaseTooOld: "databaseTooOld"
            case .databaseTooNew: "databaseTooNew"
            case .notInTransaction: "notInTransaction"
            case .readOnly: "readOnly"
            case .closed: "closed"
            case .busy: "busy"
            case .invalidParameter: "invalidParameter"
            case .unsupported: "unsupported"
            case .engineFailure: "engineFailure"
            case .ioFailure: "ioFailure"
            default: "code \(rawValue)"
            }
        }
    }

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
    package static let notADatabase = StorageError(.notADatabase, "not a database")
    /// A pattern for matching "corrupt".
    package static let corrupt = StorageError(.corrupt, "the file is damaged")
    /// A pattern for matching "database too old".
    package static let databaseTooOld = StorageError(.databaseTooOld, "the database is too old")
    /// A pattern for matching "database too new".
    package static let databaseTooNew = StorageError(.databaseTooNew, "the database is too new")
    /// A pattern for matching writes outside a transaction.
    package static let notInTransaction = StorageError(.notInTransaction, "not in a transaction")
    /// A pattern for matching writes to a read-only file.
    package static let readOnly = StorageError(.readOnly, "the file is read-only")
    /// A pattern for matching "not found".
    package static let notFound = StorageError(.notFound, "not found")
    /// A pattern for matching use after close.
    package static let closed = StorageError(.closed, "the data file is closed")
}

extension StorageError: ChainedError {
    /// The cause reported by the engine or the system.
    package var cause: (any Error)? { underlying }
}

extension StorageError: Equatable {
    /// Errors are equal when their codes are: the message and cause describe one occurrence.
    package static func == (lhs: StorageError, rhs: StorageError) -> Bool { lhs.code == rhs.code }
}
