/// An error that carries its Couchbase Lite 2.x number beside its message and cause. Every
/// module's error type conforms, so the public API turns any of them into its one public error
/// in one place, keeping the number the module chose and the whole chain of causes.
///
/// ```swift
/// extension QueryError: CodedError {
///     package var errorCode: CBLErrorCode { kind == .missingIndex ? .missingIndex : .invalidQuery }
/// }
/// ```
package protocol CodedError: ChainedError, CustomStringConvertible {
    /// The 2.x number a user sees for this failure.
    var errorCode: CBLErrorCode { get }
    /// The message a user sees: `message`, or more where the type keeps a detail beside it
    /// (a query's location, a byte offset).
    var publicMessage: String { get }
}

extension CodedError {
    /// The message alone.
    package var publicMessage: String { message }
}
