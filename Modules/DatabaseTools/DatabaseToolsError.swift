/// The error every database tool throws: a code to match on, a one-line message naming the
/// database, document or file and the problem, and the cause when there is one.
package struct DatabaseToolsError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is.
    package enum Code: String, Sendable {
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
    package var description: String {
        guard let underlying else { return message }
        return "\(message) (cause: \(underlying))"
    }

    /// Runs `body`, wrapping any error that is not already a tools error with `context`.
    @discardableResult
    package static func wrapping<T>(_ code: Code, _ context: @autoclosure () -> String,
                                    _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as DatabaseToolsError {
            throw error
        } catch {
            throw DatabaseToolsError(code, context(), underlying: error)
        }
    }
}
