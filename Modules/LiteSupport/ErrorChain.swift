/// An error that states one thing in words a person understands and may have a cause: every
/// error type of the project, so that any chain of them prints as one line.
package protocol ChainedError: Error {
    /// What happened, for a person (it may already repeat its cause's message).
    var message: String { get }
    /// The error that caused this one.
    var cause: (any Error)? { get }
    /// A technical detail to print last (an engine's error code), if any.
    var detail: String? { get }
}

extension ChainedError {
    /// No detail.
    package var detail: String? { nil }
}

/// Prints a chain of errors as one line that states each fact once: the outer message, then
/// each cause's message that the line does not already contain, then the technical details
/// (engine error codes) in brackets at the end.
///
/// `cannot save "x": SQLite database "…": unknown function: fl_value() [SQLite error 1]`
package enum ErrorChain {
    /// The line for `message` caused by `cause`.
    package static func describe(_ message: String, cause: (any Error)?) -> String {
        var text = message
        var details: [String] = []
        var next = cause
        var depth = 0
        while let error = next, depth < 16 {
            depth += 1
            if let chained = error as? any ChainedError {
                if !chained.message.isEmpty, !text.contains(chained.message) { text += ": " + chained.message }
                if let detail = chained.detail, !details.contains(detail) { details.append(detail) }
                next = chained.cause
            } else {
                let description = String(describing: error)
                if !text.contains(description) { text += ": " + description }
                next = nil
            }
        }
        return details.isEmpty ? text : text + " [" + details.joined(separator: "; ") + "]"
    }
}
