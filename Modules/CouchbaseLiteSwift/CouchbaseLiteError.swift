import LiteSupport

/// The error every Couchbase Lite call throws: a code from the 2.x `CBLErrorDomain`, a message a
/// person can act on, and the underlying cause.
///
/// ```swift
/// do {
///     try database.purgeDocument(withID: "gone")
/// } catch let error as CouchbaseLiteError where error.code == .notFound {
///     // nothing to purge
/// }
/// ```
public struct CouchbaseLiteError: Error, Sendable, CustomStringConvertible {
    /// The error domain, as Couchbase Lite 2.x names it: ``CBLErrorDomain``.
    public static let domain = CBLErrorDomain

    /// An error number of the 2.x `CBLErrorDomain`.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The number.
        public let rawValue: Int
        /// Wraps a number.
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// Takes a number from the project's one table of them.
        init(_ code: CBLErrorCode) { rawValue = code.rawValue }

        /// An internal assertion failed (a bug).
        public static let assertionFailed = Code(.assertionFailed)
        /// The operation is not implemented.
        public static let unimplemented = Code(.unimplemented)
        /// Encryption is not supported.
        public static let unsupportedEncryption = Code(.unsupportedEncryption)
        /// A revision ID is malformed.
        public static let badRevisionID = Code(.badRevisionID)
        /// A revision's data is corrupt.
        public static let corruptRevisionData = Code(.corruptRevisionData)
        /// The database is not open.
        public static let notOpen = Code(.notOpen)
        /// The document or database was not found.
        public static let notFound = Code(.notFound)
        /// The document changed since it was read.
        public static let conflict = Code(.conflict)
        /// A parameter is invalid.
        public static let invalidParameter = Code(.invalidParameter)
        /// Something unexpected happened.
        public static let unexpectedError = Code(.unexpectedError)
        /// A file could not be opened.
        public static let cantOpenFile = Code(.cantOpenFile)
        /// A file operation failed.
        public static let ioError = Code(.ioError)
        /// Memory could not be allocated.
        public static let memoryError = Code(.memoryError)
        /// The database is read-only.
        public static let notWriteable = Code(.notWriteable)
        /// Data is corrupt.
        public static let corruptData = Code(.corruptData)
        /// The database is busy.
        public static let busy = Code(.busy)
        /// The operation needs a transaction.
        public static let notInTransaction = Code(.notInTransaction)
        /// A transaction was left open.
        public static let transactionNotClosed = Code(.transactionNotClosed)
        /// The operation is not supported.
        public static let unsupported = Code(.unsupported)
        /// The file is not a database.
        public static let notADatabaseFile = Code(.notADatabaseFile)
        /// The database is in a format this library does not read.
        public static let wrongFormat = Code(.wrongFormat)
        /// Encryption or decryption failed.
        public static let crypto = Code(.crypto)
        /// A query is invalid.
        public static let invalidQuery = Code(.invalidQuery)
        /// A query needs an index that does not exist.
        public static let missingIndex = Code(.missingIndex)
        /// A query parameter is invalid.
        public static let invalidQueryParam = Code(.invalidQueryParam)
        /// The remote peer reported an error.
        public static let remoteError = Code(.remoteError)
        /// The database is too old to open without upgrading it.
        public static let databaseTooOld = Code(.databaseTooOld)
        /// The database was written by a newer version.
        public static let databaseTooNew = Code(.databaseTooNew)
        /// A document ID is invalid.
        public static let badDocID = Code(.badDocID)
        /// The database could not be upgraded.
        public static let cantUpgradeDatabase = Code(.cantUpgradeDatabase)

        /// The file is not a database (2.x's `CBLErrorUnreadableDatabase` name for 20).
        public static let unreadableDatabase = notADatabaseFile

        /// Network errors start here (5000 + the failure).
        public static let networkBase = Code(.networkBase)
        /// HTTP errors are 10000 + the status code.
        public static let httpBase = Code(.httpBase)
        /// WebSocket close codes are 11000 + the close code − 1000.
        public static let webSocketBase = Code(.webSocketBase)

        /// The domain and number, e.g. `CBLErrorDomain 7`.
        public var description: String { "CBLErrorDomain \(rawValue)" }
    }

    /// What kind of failure this is.
    public let code: Code
    /// What happened and what to do about it.
    public let message: String
    /// The error that caused this one, if any.
    public let underlying: (any Error)?

    /// Makes an error.
    public init(_ code: Code, _ message: String, underlying: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.underlying = underlying
    }

    /// The code and the message, for logs.
    public var description: String {
        "CouchbaseLiteError(\(code.rawValue)): " + ErrorChain.describe(message, cause: underlying)
    }
}

extension CouchbaseLiteError {
    /// The one conversion of the public API: any error of the modules below becomes a
    /// `CouchbaseLiteError` with the 2.x number that module gave it (``CodedError``), its message
    /// and the whole chain of causes. An error that carries no number (a system or library error)
    /// gets `fallback` and `context` before its text, since nothing else says what failed; a
    /// module's error already says it. A `CouchbaseLiteError` passes through unchanged.
    init(_ error: any Error, context: String? = nil, fallback: Code = .unexpectedError) {
        if let error = error as? CouchbaseLiteError {
            self = error
        } else if let coded = error as? any CodedError {
            self.init(Code(coded.errorCode), coded.publicMessage, underlying: coded)
        } else {
            self.init(fallback, context.map { "\($0): \(error)" } ?? "\(error)", underlying: error)
        }
    }

    /// Runs `body`, turning whatever it throws into a `CouchbaseLiteError` (see
    /// ``init(_:context:fallback:)``).
    static func wrapping<T>(_ context: @autoclosure () -> String? = nil, fallback: Code = .unexpectedError,
                            _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch {
            throw CouchbaseLiteError(error, context: context(), fallback: fallback)
        }
    }

    /// Runs `body`, turning the errors of the modules below (``CodedError``) into
    /// `CouchbaseLiteError`s and letting every other error through unchanged: for calls that
    /// run the caller's own code, whose errors are the caller's.
    static func convertingModuleErrors<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch where error is any CodedError {
            throw CouchbaseLiteError(error)
        }
    }

    /// The same for asynchronous work.
    static func convertingModuleErrors<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch where error is any CodedError {
            throw CouchbaseLiteError(error)
        }
    }

    /// The same as ``wrapping(_:fallback:_:)-(_,_,()->T)`` for asynchronous work.
    static func wrapping<T>(_ context: @autoclosure () -> String? = nil, fallback: Code = .unexpectedError,
                            _ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch {
            throw CouchbaseLiteError(error, context: context(), fallback: fallback)
        }
    }
}
