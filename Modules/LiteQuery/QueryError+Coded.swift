import LiteSupport

extension QueryError: CodedError {
    /// `invalidQuery`, or `missingIndex` for a search of a full-text index that does not exist.
    package var errorCode: CBLErrorCode {
        switch kind {
        case .invalidQuery: .invalidQuery
        case .missingIndex: .missingIndex
        }
    }

    /// A query error has no cause.
    package var cause: (any Error)? { nil }
    /// The message with its position.
    package var publicMessage: String { description }
}
