
/// A full-text problem a person can act on: a bad match expression (with its position), an
/// unknown language.
package struct TextAnalysisError: Error, Sendable, CustomStringConvertible, Equatable {
    /// What is wrong, for a person.
    package let message: String
    /// The offset (in characters) in the match expression where the problem is, if any.
    package let position: Int?

    /// Makes an error.
    package init(_ message: String, position: Int? = nil) {
        self.message = message
        self.position = position
    }

    /// The message, with the position when there is one.
    package var description: String {
        position.map { "\(message) (at character \($0 + 1))" } ?? message
    }
}
