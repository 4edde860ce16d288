import LiteSupport

/// The cause of a failure reported by a C library, as the library worded it.
package struct EngineMessage: Error, Sendable, CustomStringConvertible {
    /// The library's numeric result code, when it has one.
    package let code: Int32
    /// The library's message.
    package let text: String
    /// The library's name (`SQLite`), for the code's label.
    package let library: String
    /// Wraps a library message.
    package init(code: Int32 = 0, _ text: String, library: String = "engine") {
        self.code = code
        self.text = text
        self.library = library
    }
    /// The library's message with its code.
    package var description: String { code == 0 ? text : "\(text) [\(code)]" }
}

extension EngineMessage: ChainedError {
    /// The engine's text.
    package var message: String { text }
    /// None: the engine's message is the end of the chain.
    package var cause: (any Error)? { nil }
    /// The engine's error code, when it gave one.
    package var detail: String? { code == 0 ? nil : "\(library) error code \(code)" }
}
