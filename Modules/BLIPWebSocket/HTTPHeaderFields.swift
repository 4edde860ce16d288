/// HTTP header fields in their received order, with case-insensitive lookup by name.
///
/// The handshake headers of a WebSocket connection: what a client adds to its upgrade request
/// (`Authorization`, `Cookie`), what a server saw in it, what a refusing server answered.
package struct HTTPHeaderFields: Sendable, Equatable, ExpressibleByDictionaryLiteral {
    /// One header line.
    package struct Field: Sendable, Equatable {
        package var name: String
        package var value: String

        package init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// Every field, in order; a name may repeat (`Set-Cookie`).
    package private(set) var fields: [Field]

    package init(_ fields: [Field] = []) {
        self.fields = fields
    }

    package init(dictionaryLiteral elements: (String, String)...) {
        fields = elements.map { Field(name: $0.0, value: $0.1) }
    }

    /// Appends a field, keeping any earlier one of the same name.
    package mutating func add(name: String, value: String) {
        fields.append(Field(name: name, value: value))
    }

    /// The first value of the named field (names compare case-insensitively).
    package subscript(name: String) -> String? {
        let wanted = name.lowercased()
        return fields.first { $0.name.lowercased() == wanted }?.value
    }

    /// Every value of the named field, in order.
    package func values(for name: String) -> [String] {
        let wanted = name.lowercased()
        return fields.filter { $0.name.lowercased() == wanted }.map(\.value)
    }

    /// The comma-separated tokens of every value of the named field, trimmed
    /// (`Sec-WebSocket-Protocol: a, b` → `["a", "b"]`).
    package func tokens(for name: String) -> [String] {
        values(for: name).flatMap { $0.split(separator: ",") }
            .map { $0.trimmingWhitespace() }.filter { !$0.isEmpty }
    }
}

extension Substring {
    func trimmingWhitespace() -> String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
