/// A code a module's errors are sorted by: what a caller matches on, and the 2.x number a user
/// sees for it.
package protocol ModuleErrorCode: Sendable, Hashable {
    /// The 2.x number for this kind of failure.
    var errorCode: CBLErrorCode { get }
}

/// The error shape the modules share: a code to match on, one line for a person, and the cause.
/// A module names its own with a typealias over its code type, so `catch let … as` still tells
/// the modules apart and each adds its own helpers in a constrained extension.
///
/// ```swift
/// package typealias BlobStoreError = ModuleError<BlobStoreErrorCode>
/// throw BlobStoreError(.notFound, "blob \(key) is not in the store")
/// ```
package struct ModuleError<Code: ModuleErrorCode>: CodedError, Sendable {
    /// The kind of failure.
    package let code: Code
    /// What happened and to what, for a person.
    package let message: String
    /// The error that caused this one, when there is one.
    package let underlying: (any Error)?

    /// Makes an error from its parts.
    package init(_ code: Code, _ message: String, underlying: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.underlying = underlying
    }

    /// The error that caused this one (``underlying``).
    package var cause: (any Error)? { underlying }
    /// The code's 2.x number.
    package var errorCode: CBLErrorCode { code.errorCode }
    /// The message, then what its cause adds (each fact once, engine codes last).
    package var description: String { ErrorChain.describe(message, cause: underlying) }
}

extension CBLErrorCode: ModuleErrorCode {
    /// The code itself: the database core's errors are numbered in 2.x terms already.
    package var errorCode: CBLErrorCode { self }
}
