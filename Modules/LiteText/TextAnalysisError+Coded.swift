import LiteSupport

extension TextAnalysisError: CodedError {
    /// An unusable language or match expression is the caller's parameter.
    package var errorCode: CBLErrorCode { .invalidParameter }
    /// A text analysis error has no cause.
    package var cause: (any Error)? { nil }
    /// The message with its position.
    package var publicMessage: String { description }
}
