import LiteSupport

/// An error from the database core, numbered as Couchbase Lite 2.x numbers its errors.
///
/// The codes are those of the 2.x `CBLErrorDomain` (which mirror LiteCore's), so the public
/// `CouchbaseLiteError` carries them over unchanged.
package typealias DatabaseError = ModuleError<CBLErrorCode>

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
