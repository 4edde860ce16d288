import Foundation

/// Small JSON helpers for message bodies (change lists, checkpoint values).
package enum MessageJSON {
    /// The JSON text of a value JSONSerialization produced (fragments allowed).
    package static func encode(_ value: Any) -> String {
        guard let data = try? JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed, .withoutEscapingSlashes]),
              let text = String(data: data, encoding: .utf8) else { return "null" }
        return text
    }

    /// Parses JSON bytes (fragments allowed); nil when they are not JSON.
    package static func decode(_ bytes: [UInt8]) -> Any? {
        guard !bytes.isEmpty else { return nil }
        return try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
    }

    /// A JSON string literal.
    package static func quoted(_ string: String) -> String { encode(string) }
}
