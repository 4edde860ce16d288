/// A query that cannot be compiled or run: what is wrong and where (a path into the JSON query).
package struct QueryError: Error, Sendable, CustomStringConvertible, Equatable {
    /// What is wrong, for a person.
    package let message: String
    /// Where in the query (`WHERE[1][2]`), when known.
    package let location: String?
    /// Which Couchbase Lite error it is.
    package let kind: Kind

    /// The Couchbase Lite 2.x errors a query fails with.
    package enum Kind: Sendable, Equatable {
        /// The query is malformed or cannot run (`CBLErrorInvalidQuery`).
        case invalidQuery
        /// It searches a full-text index that does not exist (`CBLErrorMissingIndex`, as 2.8's
        /// "'match' test requires a full-text index").
        case missingIndex
    }

    /// Makes an error.
    package init(_ message: String, at location: String? = nil, kind: Kind = .invalidQuery) {
        self.message = message
        self.location = location
        self.kind = kind
    }

    /// The message with its location.
    package var description: String { location.map { "\(message) (at \($0))" } ?? message }
}
