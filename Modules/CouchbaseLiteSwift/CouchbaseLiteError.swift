import LiteDatabase
import LiteQuery
import LiteStorage

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

        /// An internal assertion failed (a bug).
        public static let assertionFailed = Code(rawValue: 1)
        /// The operation is not implemented.
        public static let unimplemented = Code(rawValue: 2)
        /// Encryption is not supported.
        public static let unsupportedEncryption = Code(rawValue: 3)
        /// A revision ID is malformed.
        public static let badRevisionID = Code(rawValue: 4)
        /// A revision's data is corrupt.
        public static let corruptRevisionData = Code(rawValue: 5)
        /// The database is not open.
        public static let notOpen = Code(rawValue: 6)
        /// The document or database was not found.
        public static let notFound = Code(rawValue: 7)
        /// The document changed since it was read.
        public static let conflict = Code(rawValue: 8)
        /// A parameter is invalid.
        public static let invalidParameter = Code(rawValue: 9)
        /// Something unexpected happened.
        public static let unexpectedError = Code(rawValue: 10)
        /// A file could not be opened.
        public static let cantOpenFile = Code(rawValue: 11)
        /// A file operation failed.
        public static let ioError = Code(rawValue: 12)
        /// Memory could not be allocated.
        public static let memoryError = Code(rawValue: 13)
        /// The database is read-only.
        public static let notWriteable = Code(rawValue: 14)
        /// Data is corrupt.
        public static let corruptData = Code(rawValue: 15)
        /// The database is busy.
        public static let busy = Code(rawValue: 16)
        /// The operation needs a transaction.
        public static let notInTransaction = Code(rawValue: 17)
        /// A transaction was left open.
        public static let transactionNotClosed = Code(rawValue: 18)
        /// The operation is not supported.
        public static let unsupported = Code(rawValue: 19)
        /// The file is not a database.
        public static let notADatabaseFile = Code(rawValue: 20)
        /// The database is in a format this library does not read.
        public static let wrongFormat = Code(rawValue: 21)
        /// Encryption or decryption failed.
        public static let crypto = Code(rawValue: 22)
        /// A query is invalid.
        public static let invalidQuery = Code(rawValue: 23)
        /// A query needs an index that does not exist.
        public static let missingIndex = Code(rawValue: 24)
        /// A query parameter is invalid.
        public static let invalidQueryParam = Code(rawValue: 25)
        /// The remote peer reported an error.
        public static let remoteError = Code(rawValue: 26)
        /// The database is too old to open without upgrading it.
        public static let databaseTooOld = Code(rawValue: 27)
        /// The database was written by a newer version.
        public static let databaseTooNew = Code(rawValue: 28)
        /// A document ID is invalid.
        public static let badDocID = Code(rawValue: 29)
        /// The database could not be upgraded.
        public static let cantUpgradeDatabase = Code(rawValue: 30)

        /// The file is not a database (2.x's `CBLErrorUnreadableDatabase` name for 20).
        public static let unreadableDatabase = notADatabaseFile

        /// Network errors start here (5000 + the failure).
        public static let networkBase = Code(rawValue: CBLErrorNetworkBase)
        /// HTTP errors are 10000 + the status code.
        public static let httpBase = Code(rawValue: CBLErrorHTTPBase)
        /// WebSocket close codes are 11000 + the close code − 1000.
        public static let webSocketBase = Code(rawValue: CBLErrorWebSocketBase)

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
    /// Carries a database-core error over with the same number.
    init(_ error: DatabaseError) {
        self.init(Code(rawValue: error.code.rawValue), error.message, underlying: error.underlying ?? error)
    }

    /// Carries a query error over: `invalidQuery`, or `missingIndex` for a search of an index
    /// that does not exist.
    init(_ error: QueryError) {
        let code: Code = switch error.kind {
        case .invalidQuery: .invalidQuery
        case .missingIndex: .missingIndex
        }
        self.init(code, error.description, underlying: error)
    }

    /// Runs `body`, turning lower modules' errors into `CouchbaseLiteError`s.
    static func wrapping<T>(_ context: @autoclosure () -> String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as CouchbaseLiteError {
            throw error
        } catch let error as DatabaseError {
            throw CouchbaseLiteError(error)
        } catch {
            throw CouchbaseLiteError(.unexpectedError, "\(context()): \(error)", underlying: error)
        }
    }
}
