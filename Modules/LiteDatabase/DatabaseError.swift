import LiteSupport

/// An error from the database core, numbered as Couchbase Lite 2.x numbers its errors.
///
/// The codes are those of the 2.x `CBLErrorDomain` (which mirror LiteCore's), so the public
/// `CouchbaseLiteError` carries them over unchanged.
package struct DatabaseError: Error, Sendable, CustomStringConvertible {
    /// A 2.x `CBLErrorDomain` error number.
    package typealias Code = CBLErrorCode

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

extension DatabaseError {
    /// Puts what was being done before any error's message, keeping the error's 2.x number
    /// (`unexpectedError` when it has none) and its chain of causes.
    package init(_ error: any Error, context: String) {
        if let error = error as? DatabaseError {
            self.init(error.code, "\(context): \(error.message)", underlying: error.underlying)
        } else if let coded = error as? any CodedError {
            self.init(coded.errorCode, "\(context): \(coded.message)", underlying: coded)
        } else {
            self.init(.unexpectedError, "\(context): \(error)", underlying: error)
        }
    }
}

extension DatabaseError: CodedError {
    /// The error that caused this one.
    package var cause: (any Error)? { underlying }
    /// The code, which is already a 2.x number.
    package var errorCode: CBLErrorCode { code }
}
