/// The cause of a failure reported by a C library, as the library worded it.
package struct EngineMessage: Error, Sendable, CustomStringConvertible {
    /// The library's numeric result code, when it has one.
    package let code: Int32
    /// The library's message.
    package let text: String
    /// Wraps a library message.
    package init(code: Int32 = 0, _ text: String) {
        self.code = code
        self.text = text
    }
    /// The library's message with its code.
    package var description: String { code == 0 ? text : "\(text) [\(code)]" }
}
