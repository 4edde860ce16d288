/// An error from the blob store: what went wrong, with which blob or file, and the cause.
///
/// Match on ``code`` to react; show ``message`` (or the error's `description`) to a person.
package struct BlobStoreError: Error, Sendable, CustomStringConvertible {
    /// The kind of failure.
    package struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code's name, e.g. `"corrupt"`.
        package let rawValue: String
        /// Makes a code from its name.
        package init(rawValue: String) { self.rawValue = rawValue }

        /// Text that should name a blob (`sha1-…`, a blob file name) does not.
        package static let invalidKey = Code(rawValue: "invalidKey")
        /// The blob's file is not in the store.
        package static let notFound = Code(rawValue: "notFound")
        /// The blob's file exists but its size or SHA-1 digest does not match what names it.
        package static let corrupt = Code(rawValue: "corrupt")
        /// Content written for an expected key or length hashed or measured differently.
        package static let contentMismatch = Code(rawValue: "contentMismatch")
        /// A caller passed an argument the operation cannot use (an empty buffer, a zero chunk size).
        package static let invalidArgument = Code(rawValue: "invalidArgument")
        /// A writer or reader was used after it was finished, aborted or closed.
        package static let closed = Code(rawValue: "closed")
        /// The file system refused an operation (permissions, disk full, a stream's read error…).
        package static let io = Code(rawValue: "io")

        /// The code's name.
        package var description: String { rawValue }
    }

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

    /// The message, followed by the cause when there is one.
    package var description: String {
        guard let underlying else { return message }
        return "\(message) (\(underlying))"
    }

    static func invalidKey(_ message: String) -> BlobStoreError {
        BlobStoreError(.invalidKey, "invalid blob key: " + message)
    }
}
