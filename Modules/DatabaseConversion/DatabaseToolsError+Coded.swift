import LiteSupport

extension DatabaseToolsError: CodedError {
    /// The 2.x number: a copy that does not match its source is corrupt data, a database that
    /// must first be upgraded is too old, a bad argument is the caller's parameter.
    package var errorCode: CBLErrorCode {
        switch code {
        case .notFound: .notFound
        case .alreadyExists: .conflict
        case .invalidArgument: .invalidParameter
        case .upgradeRequired: .databaseTooOld
        case .notYetSupported: .unsupported
        case .verificationFailed: .corruptData
        case .busy: .busy
        default: .ioError
        }
    }
}
