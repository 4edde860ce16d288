import LiteSupport

extension FleeceError: CodedError {
    /// The 2.x number: bytes that do not decode are corrupt data; a value, JSON text or path
    /// that cannot be used is the caller's parameter.
    package var errorCode: CBLErrorCode {
        switch kind {
        case .invalidData, .invalidDelta: .corruptData
        case .encodeError, .unsupportedValue, .jsonError, .pathSyntax: .invalidParameter
        }
    }

    /// A Fleece error has no cause.
    package var cause: (any Error)? { nil }
    /// The message with its position.
    package var publicMessage: String { description }
}
