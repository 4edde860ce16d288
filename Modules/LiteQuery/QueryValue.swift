import Fleece

/// A value as a query sees it, with N1QL's two kinds of nothing: MISSING (no such property)
/// and NULL (JSON null).
package enum QueryValue: Sendable, Hashable {
    case missing
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([QueryValue])
    case dictionary([String: QueryValue])

    /// Equal as Couchbase Lite's binary collation keeps values apart: strings only when their
    /// bytes are (Swift's `==` equates "é" and "e" + U+0301, which 2.8 groups, de-duplicates
    /// and joins as two values); numbers of one kind by value.
    package static func == (lhs: QueryValue, rhs: QueryValue) -> Bool {
        switch (lhs, rhs) {
        case (.missing, .missing), (.null, .null): true
        case let (.bool(a), .bool(b)): a == b
        case let (.int(a), .int(b)): a == b
        case let (.double(a), .double(b)): a == b
        case let (.string(a), .string(b)): a.byteOrder(b) == 0
        case let (.array(a), .array(b)): a == b
        case let (.dictionary(a), .dictionary(b)): a == b
        default: false
        }
    }

    /// Hashes what ``==`` compares (a string's bytes).
    package func hash(into hasher: inout Hasher) {
        switch self {
        case .missing: hasher.combine(0)
        case .null: hasher.combine(1)
        case .bool(let flag): hasher.combine(2); hasher.combine(flag)
        case .int(let number): hasher.combine(3); hasher.combine(number)
        case .double(let number): hasher.combine(4); hasher.combine(number)
        case .string(let text): hasher.combine(5); hasher.combine(ExactString(text))
        case .array(let items): hasher.combine(6); hasher.combine(items)
        case .dictionary(let entries): hasher.combine(7); hasher.combine(entries)
        }
    }

    /// The value of a Fleece value (recursively), or `.missing` for none.
    package init(_ value: FleeceValue?) {
        guard let value, !value.isUndefined else {
            self = .missing
            return
        }
        switch value.type {
        case .null: self = .null
        case .boolean: self = .bool(value.bool)
        case .number:
            if value.isInteger, !(value.isUnsigned && value.uint64 > UInt64(Int64.max)) {
                self = .int(value.int64)
            } else {
                self = .double(value.double)
            }
        case .string: self = .string(value.string ?? "")
        case .data: self = .string(Base64.encode(value.data ?? []))
        case .array: self = .array(value.array.map { $0.map { QueryValue($0) } } ?? [])
        case .dictionary:
            var entries: [String: QueryValue] = [:]
            if let dictionary = value.dictionary {
                for (key, item) in dictionary { entries[key] = QueryValue(item) }
            }
            self = .dictionary(entries)
        case .undefined: self = .missing
        }
    }

    /// N1QL's type order: missing < null < false < true < numbers < strings < arrays < objects.
    var typeRank: Int {
        switch self {
        case .missing: 0
        case .null: 1
        case .bool(let flag): flag ? 3 : 2
        case .int, .double: 4
        case .string: 5
        case .array: 6
        case .dictionary: 7
        }
    }

    /// The number, for numbers.
    var number: Double? {
        switch self {
        case .int(let value): Double(value)
        case .double(let value): value
        default: nil
        }
    }

    /// N1QL collation across all values: type rank first, then within the type.
    package static func compare(_ lhs: QueryValue, _ rhs: QueryValue) -> Int {
        let (a, b) = (lhs.typeRank, rhs.typeRank)
        if a != b { return a < b ? -1 : 1 }
        switch (lhs, rhs) {
        case let (.int(x), .int(y)): return x == y ? 0 : (x < y ? -1 : 1)
        case let (.string(x), .string(y)):
            return x.byteOrder(y)
        case let (.array(x), .array(y)):
            for (p, q) in zip(x, y) {
                let order = compare(p, q)
                if order != 0 { return order }
            }
            return x.count == y.count ? 0 : (x.count < y.count ? -1 : 1)
        case let (.dictionary(x), .dictionary(y)):
            if x.count != y.count { return x.count < y.count ? -1 : 1 }
            let keys = Array(Set(x.keys).union(y.keys)).sorted { $0.precedesInByteOrder($1) }
            for key in keys {
                let order = compare(x[key] ?? .missing, y[key] ?? .missing)
                if order != 0 { return order }
            }
            return 0
        default:
            if let x = lhs.number, let y = rhs.number { return x == y ? 0 : (x < y ? -1 : 1) }
            return 0
        }
    }

    /// Truthiness for WHERE: only `true`, non-zero numbers, non-empty strings/collections count.
    var isTruthy: Bool {
        switch self {
        case .missing, .null: false
        case .bool(let flag): flag
        case .int(let value): value != 0
        case .double(let value): value != 0 && !value.isNaN
        case .string(let text): !text.isEmpty
        case .array(let items): !items.isEmpty
        case .dictionary(let entries): !entries.isEmpty
        }
    }

    /// The value as a plain Swift value (nil for missing and null), for results.
    package var plain: Any? {
        switch self {
        case .missing, .null: nil
        case .bool(let flag): flag
        case .int(let value): value
        case .double(let value): value
        case .string(let text): text
        case .array(let items): items.map { $0.plain ?? NSNullMarker.shared }
        case .dictionary(let entries): entries.compactMapValues { $0 == .missing ? nil : ($0.plain ?? NSNullMarker.shared) }
        }
    }
}

/// Stands for JSON null inside plain arrays and dictionaries (the public API maps it to NSNull).
package final class NSNullMarker: Sendable {
    package static let shared = NSNullMarker()
}
