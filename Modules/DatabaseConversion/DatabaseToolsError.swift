import LiteDatabase
import LiteStorage
import LiteSupport
/// The error every database tool throws: a code to match on, a one-line message naming the
/// database, document or file and the problem, and the cause when there is one.
package struct DatabaseToolsError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is (extensible, like the other modules' codes).
    package struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code's name.
        package let rawValue: String
        /// Wraps a name.
        package init(rawValue: String) { self.rawValue = rawValue }
        /// The code's name.
        package var description: String { rawValue }

        /// A database, document, blob or input file does not exist.
        package static let notFound = Code(rawValue: "notFound")
        /// The destination exists and overwriting was not asked for.
        package static let alreadyExists = Code(rawValue: "alreadyExists")
        /// An argument is not acceptable (a bad path, engine name, JSON or digest).
        package static let invalidArgument = Code(rawValue: "invalidArgument")
        /// The database needs an upgrade the command was not allowed to do, or cannot do yet.
        package static let upgradeRequired = Code(rawValue: "upgradeRequired")
        /// The operation is not implemented yet.
        package static let notYetSupported = Code(rawValue: "notYetSupported")
        /// Verification found a difference between source and destination.
        package static let verificationFailed = Code(rawValue: "verificationFailed")
        /// Opening, reading or writing a database or file failed.
        package static let ioFailure = Code(rawValue: "ioFailure")
        /// The database is open elsewhere in this process.
        package static let busy = Code(rawValue: "busy")
    }

    /// What kind of failure this is.
    package let code: Code
    /// What happened and what to do about it, on one line.
    package let message: String
    /// The error that caused this one.
    package let underlying: (any Error)?

    /// Makes an error.
    package init(_ code: Code, _ message: String, underlying: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.underlying = underlying
    }

    /// The message, with the cause appended.
    /// The message, then what its cause adds (each fact once, engine codes last).
    package var description: String { ErrorChain.describe(message, cause: underlying) }

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
}

extension DatabaseToolsError {
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

    /// The error that caused this one.
    package var cause: (any Error)? { underlying }
}
