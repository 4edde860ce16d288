/// Walks a value and everything inside it, yielding each with its path from the start.
///
/// The order is Fleece's: a collection's children are all visited in stored order, and the
/// child collections met on the way are then entered last-seen first (a stack), so siblings'
/// contents come out in reverse order.
///
/// ```swift
/// for (path, value) in FleeceDeepIterator(root) { paths.append(FleeceDeepIterator.pathString(path)) }
/// ```
package struct FleeceDeepIterator: Sequence, IteratorProtocol {
    /// One step of a path: a dictionary key or an array index.
    package enum PathComponent: Sendable, Equatable, CustomStringConvertible {
        /// A dictionary key.
        case key(String)
        /// An array index.
        case index(Int)

        /// The key, or the index in decimal.
        package var description: String {
            switch self {
            case let .key(key): return key
            case let .index(index): return String(index)
            }
        }
    }

    private var pending: [(path: [PathComponent], value: FleeceValue)] = []
    private var current: (path: [PathComponent], children: [(PathComponent, FleeceValue)], next: Int)?
    private var start: FleeceValue?

    /// Starts a walk at `value` (which is yielded first, with an empty path).
    package init(_ value: FleeceValue) { start = value }

    /// The next value and its path.
    package mutating func next() -> (path: [PathComponent], value: FleeceValue)? {
        if let root = start {
            start = nil
            pending.append(([], root))
            if root.tag >= 6 {
                pending.removeAll()
                enter([], root)
            }
            return ([], root)
        }
        while true {
            if var level = current, level.next < level.children.count {
                let (component, value) = level.children[level.next]
                level.next += 1
                current = level
                let path = level.path + [component]
                if value.tag >= 6 && !(value.tag == 6 ? FleeceArray(value).isEmpty : FleeceDict(value).isEmpty) {
                    pending.append((path, value))
                }
                return (path, value)
            }
            guard let (path, value) = pending.popLast() else { current = nil; return nil }
            enter(path, value)
        }
    }

    private mutating func enter(_ path: [PathComponent], _ value: FleeceValue) {
        var children: [(PathComponent, FleeceValue)] = []
        if let array = value.array {
            for (index, item) in array.enumerated() { children.append((.index(index), item)) }
        } else if let dict = value.dictionary {
            for (key, item) in dict { children.append((.key(key), item)) }
        }
        current = (path, children, 0)
    }

    /// A path as `/`-separated text, starting with `/` (the start value's path is `/`).
    package static func pathString(_ path: [PathComponent]) -> String {
        "/" + path.map(\.description).joined(separator: "/")
    }
}

extension FleeceValue {
    /// The value as plain text, as Fleece's `toString` gives it: a string as is, numbers and
    /// booleans as JSON text, `null`, data as base64, and an empty string for a collection.
    package var text: String {
        switch tag {
        case 4: return string ?? ""
        case 6, 7: return ""
        default: return json()
        }
    }
}
