import LiteSupport

/// An error from the blob store: what went wrong, with which blob or file, and the cause.
///
/// Match on `code` to react; show `message` (or the error's `description`) to a person.
package typealias BlobStoreError = ModuleError<BlobStoreErrorCode>

/// The kinds of blob store failure.
package enum BlobStoreErrorCode: String, ModuleErrorCode, CustomStringConvertible {
    /// Text that should name a blob (`sha1-…`, a blob file name) does not.
    case invalidKey
    /// The blob's file is not in the store.
    case notFound
    /// The blob's file exists but its size or SHA-1 digest does not match what names it.
    case corrupt
    /// Content written for an expected key or length hashed or measured differently.
    case contentMismatch
    /// A caller passed an argument the operation cannot use (an empty buffer, a zero chunk size).
    case invalidArgument
    /// A writer or reader was used after it was finished, aborted or closed.
    case closed
    /// The file system refused an operation (permissions, disk full, a stream's read error…).
    case io

    /// The 2.x number: a bad key or argument is the caller's parameter, damaged or mismatched
    /// content is corrupt data, a failed file operation is an I/O error.
    package var errorCode: CBLErrorCode {
        switch self {
        case .invalidKey, .invalidArgument: .invalidParameter
        case .notFound: .notFound
        case .corrupt, .contentMismatch: .corruptData
        case .closed: .notOpen
        case .io: .ioError
        }
    }

    /// The code's name, e.g. `corrupt`.
    package var description: String { rawValue }
}

extension BlobStoreError {
    static func invalidKey(_ message: String) -> BlobStoreError {
        BlobStoreError(.invalidKey, "invalid blob key: " + message)
    }
}
