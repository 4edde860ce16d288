import LiteDatabase
import LiteStorage
import LiteSupport
/// The error every database tool throws: a code to match on, a one-line message naming the
/// database, document or file and the problem, and the cause when there is one.
package typealias DatabaseToolsError = ModuleError<DatabaseToolsErrorCode>

/// The kinds of database tool failure.
package enum DatabaseToolsErrorCode: String, ModuleErrorCode, CustomStringConvertible {
    /// A database, document, blob or input file does not exist.
    case notFound
    /// The destination exists and overwriting was not asked for.
    case alreadyExists
    /// An argument is not acceptable (a bad path, engine name, JSON or digest).
    case invalidArgument
    /// The database needs an upgrade the command was not allowed to do, or cannot do yet.
    case upgradeRequired
    /// The operation is not implemented yet.
    case notYetSupported
    /// Verification found a difference between source and destination.
    case verificationFailed
    /// Opening, reading or writing a database or file failed.
    case ioFailure
    /// The database is open elsewhere in this process.
    case busy

    /// The 2.x number: a copy that does not match its source is corrupt data, a database that
    /// must first be upgraded is too old, a bad argument is the caller's parameter.
    package var errorCode: CBLErrorCode {
        switch self {
        case .notFound: .notFound
        case .alreadyExists: .conflict
        case .invalidArgument: .invalidParameter
        case .upgradeRequired: .databaseTooOld
        case .notYetSupported: .unsupported
        case .verificationFailed: .corruptData
        case .busy: .busy
        case .ioFailure: .ioError
        }
    }

    /// The code's name.
    package var description: String { rawValue }
}

extension DatabaseToolsError {
    /// Runs `body`, wrapping any error that is not already a tools error with `context`.
    @discardableResult
    package static func wrapping<T>(_ code: Code, _ context: @autoclosure () -> String,
                                    _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch {
            throw DatabaseToolsError(error, code: code, context: context())
        }
    }

    /// Any error as a tools error: one already is; any other becomes `code` with `context`
    /// saying in the user's words what failed. A database failure gives its storage cause, since
    /// the core's own context ("saving document …") would say it again.
    package init(_ error: any Error, code: Code, context: String) {
        if let error = error as? DatabaseToolsError {
            self = error
        } else {
            self.init(code, context, underlying: ((error as? DatabaseError)?.underlying as? StorageError) ?? error)
        }
    }
}
