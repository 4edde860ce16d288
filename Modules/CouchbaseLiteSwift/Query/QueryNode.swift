import Fleece
import Foundation

/// A node of Couchbase Lite's JSON query syntax (the form LiteCore's query parser reads and the
/// builder API compiles to): JSON values, with operations as arrays `[op, operand…]`.
indirect enum QueryNode: Sendable, Equatable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([QueryNode])
    case dictionary([String: QueryNode])
    /// A value the builder could not express (an unsupported literal); compiling the query
    /// fails with this message.
    case invalid(String)

    /// An operation: `[op, operands…]`.
    static func operation(_ name: String, _ operands: QueryNode...) -> QueryNode {
        .array([.string(name)] + operands)
    }

    /// An operation with an operand list.
    static func operation(_ name: String, operands: [QueryNode]) -> QueryNode {
        .array([.string(name)] + operands)
    }

    /// The first message of an `.invalid` node inside, if any.
    var invalidReason: String? {
        switch self {
        case .invalid(let reason): return reason
        case .array(let items): return items.lazy.compactMap(\.invalidReason).first
        case .dictionary(let entries):
            return entries.keys.sorted().lazy.compactMap { entries[$0]?.invalidReason }.first
        default: return nil
        }
    }

    /// JSON text (dictionary keys sorted, so equal queries print alike).
    var json: String {
        var out = ""
        write(to: &out)
        return out
    }

    private func write(to out: inout String) {
        switch self {
        case .null, .invalid: out += "null"
        case .bool(let value): out += value ? "true" : "false"
        case .int(let value): out += String(value)
        case .double(let value):
            if value.isFinite, value == value.rounded(), abs(value) < 1e15 {
                out += String(Int64(value)) + ".0"
            } else if value.isFinite {
                out += "\(value)"
            } else {
                out += "null"
            }
        case .string(let value): Self.writeString(value, to: &out)
        case .array(let items):
            out += "["
            for (index, item) in items.enumerated() {
                if index > 0 { out += "," }
                item.write(to: &out)
            }
            out += "]"
        case .dictionary(let entries):
            out += "{"
            for (index, key) in entries.keys.sorted().enumerated() {
                if index > 0 { out += "," }
                Self.writeString(key, to: &out)
                out += ":"
                entries[key]?.write(to: &out)
            }
            out += "}"
        }
    }

    private static func writeString(_ value: String, to out: inout String) {
        out += JSONQuoting.quoted(value)
    }

    /// The node for a Swift value given to `Expression.value(_:)` or as a parameter.
    static func literal(_ value: Any?) -> QueryNode {
        switch value {
        case nil: return .null
        case let value as QueryNode: return value
        case let value as Bool: return .bool(value)
        case let value as String: return .string(value)
        case let value as Int: return .int(Int64(value))
        case let value as Int64: return .int(value)
        case let value as Int32: return .int(Int64(value))
        case let value as UInt32: return .int(Int64(value))
        case let value as UInt64:
            return value <= UInt64(Int64.max) ? .int(Int64(value)) : .double(Double(value))
        case let value as Double: return .double(value)
        case let value as Float: return .double(Double(value))
        case let value as NSNumber:
            let type = String(cString: value.objCType)
            if type == "c" || type == "B" { return .bool(value.boolValue) }   // how booleans box
            return ["f", "d"].contains(type) ? .double(value.doubleValue) : .int(value.int64Value)
        case let value as Date: return .string(ISO8601.string(from: value))
        case is NSNull: return .null
        case let value as [Any]: return .operation("[]", operands: value.map { literal($0) })
        case let value as [String: Any]: return .dictionary(value.mapValues { literal($0) })
        case let value as ArrayObject: return literal(value.toArray())
        case let value as DictionaryObject: return literal(value.toDictionary())
        // An expression inside an array or dictionary literal (`Expression.array([Expression.property("a")])`).
        case let value as any ExpressionProtocol: return value.queryNode
        default: return .invalid("a query cannot hold a value of type \(type(of: value as Any))")
        }
    }
}
