/// A key path into nested Fleece values, in Fleece's syntax: `a.b[2][-1].c`, an optional
/// leading `$` or `$.`, negative indexes counting from the end, and `\` escaping the next
/// character of a property name (`a\.b` is the single key "a.b").
///
/// ```swift
/// let path = try FleecePath("friends[-1].name")
/// let name = path.evaluate(on: document.root)?.string
/// ```
package struct FleecePath: Sendable, Equatable, CustomStringConvertible {
    /// One step of the path.
    package enum Component: Sendable, Equatable {
        /// A dictionary key.
        case key(String)
        /// An array index; negative counts from the end (-1 is the last item).
        case index(Int)
    }

    /// The steps, in order.
    package let components: [Component]

    /// Parses a path.
    ///
    /// - Throws: ``FleeceError`` (`.pathSyntax`) naming the problem and its position.
    package init(_ text: String) throws {
        var components: [Component] = []
        let characters = Array(text)
        var index = 0
        func error(_ message: String) -> FleeceError {
            FleeceError(.pathSyntax, "key path \"\(text)\": \(message)", offset: index)
        }
        if characters.first == "$" {
            index = 1
            if index < characters.count && characters[index] == "." { index += 1 }
        } else if characters.first == "." {
            index = 1
        }
        var expectingKey = true
        while index < characters.count {
            let character = characters[index]
            if character == "[" {
                index += 1
                let start = index
                if index < characters.count && characters[index] == "-" { index += 1 }
                while index < characters.count && characters[index].isASCII && characters[index].isNumber { index += 1 }
                guard index < characters.count, characters[index] == "]",
                      let number = Int(String(characters[start..<index])) else { throw error("expected a number and ']' after '['") }
                index += 1
                components.append(.index(number))
                expectingKey = false
            } else if character == "." {
                guard !expectingKey || components.isEmpty else { throw error("empty property name") }
                index += 1
                expectingKey = true
                guard index < characters.count else { throw error("path ends with '.'") }
            } else {
                guard expectingKey else { throw error("expected '.' or '[' after ']'") }
                var key = ""
                while index < characters.count && characters[index] != "." && characters[index] != "[" {
                    if characters[index] == "\\" {
                        index += 1
                        guard index < characters.count else { throw error("path ends with '\\'") }
                    }
                    key.append(characters[index])
                    index += 1
                }
                components.append(.key(key))
                expectingKey = false
            }
        }
        self.components = components
    }

    /// Makes a path from components.
    package init(components: [Component]) { self.components = components }

    /// The value the path leads to from `root`, or nil when a step is missing or meets the
    /// wrong type.
    package func evaluate(on root: FleeceValue) -> FleeceValue? {
        var value = root
        for component in components {
            switch component {
            case let .key(key):
                guard let dict = value.dictionary, let next = dict[key] else { return nil }
                value = next
            case let .index(index):
                guard let array = value.array else { return nil }
                guard let next = array[index < 0 ? array.count + index : index] else { return nil }
                value = next
            }
        }
        return value
    }

    /// The path in its text form.
    package var description: String {
        var text = ""
        for component in components {
            switch component {
            case let .key(key):
                if !text.isEmpty { text += "." }
                for character in key {
                    if character == "." || character == "[" || character == "\\" || (character == "$" && text.isEmpty) { text.append("\\") }
                    text.append(character)
                }
            case let .index(index):
                text += "[\(index)]"
            }
        }
        return text
    }
}
