/// A query that cannot be compiled or run: what is wrong and where (a path into the JSON query).
package struct QueryError: Error, Sendable, CustomStringConvertible, Equatable {
    /// What is wrong, for a person.
    package let message: String
    /// Where in the query (`WHERE[1][2]`), when known.
    package let location: String?

    /// Makes an error.
    package init(_ message: String, at location: String? = nil) {
        self.message = message
        self.location = location
    }

    /// The message with its location.
    package var description: String { location.map { "\(message) (at \($0))" } ?? message }
}
