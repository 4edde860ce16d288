import LiteSupport

extension BlobStoreError: CodedError {
    /// The 2.x number: a bad key or argument is the caller's parameter, damaged or mismatched
    /// content is corrupt data, a failed file operation is an I/O error.
    package var errorCode: CBLErrorCode {
        switch code {
        case .invalidKey, .invalidArgument: .invalidParameter
        case .notFound: .notFound
        case .corrupt, .contentMismatch: .corruptData
        case .closed: .notOpen
        default: .ioError
        }
    }

    /// The system error behind this one, if any.
    package var cause: (any Error)? { underlying }
}
