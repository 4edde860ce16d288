import Foundation
import LiteSupport

/// Values for a query's `Expression.parameter(name)`s.
///
/// ```swift
/// let params = Parameters().setString("hotel", forName: "type")
/// query.parameters = params
/// ```
public final class Parameters: Sendable {
    private let values: Locked<[String: QueryNode]>

    /// No values.
    public init() { values = Locked([:]) }

    /// A copy of `parameters` to change.
    public init(parameters: Parameters?) {
        values = Locked(parameters?.nodes ?? [:])
    }

    var nodes: [String: QueryNode] { values.withLock { $0 } }

    /// The value set for `name` (as a plain Swift value), or nil.
    public func value(forName name: String) -> Any? {
        guard let node = values.withLock({ $0[name] }) else { return nil }
        return node.plainValue
    }

    /// Sets any literal value (nil, string, number, boolean, date, array, dictionary).
    @discardableResult
    public func setValue(_ value: Any?, forName name: String) -> Parameters {
        values.withLock { $0[name] = .literal(value) }
        return self
    }
    /// Sets a string.
    @discardableResult public func setString(_ value: String?, forName name: String) -> Parameters { setValue(value, forName: name) }
    /// Sets a number.
    @discardableResult public func setNumber(_ value: NSNumber?, forName name: String) -> Parameters { setValue(value, forName: name) }
    /// Sets an integer.
    @discardableResult public func setInt(_ value: Int, forName name: String) -> Parameters { setValue(value, forName: name) }
    /// Sets a 64-bit integer.
    @discardableResult public func setInt64(_ value: Int64, forName name: String) -> Parameters { setValue(value, forName: name) }
    /// Sets a floating-point number.
    @discardableResult public func setFloat(_ value: Float, forName name: String) -> Parameters { setValue(value, forName: name) }
    /// Sets a floating-point number.
    @discardableResult public func setDouble(_ value: Double, forName name: String) -> Parameters { setValue(value, forName: name) }
    /// Sets a boolean.
    @discardableResult public func setBoolean(_ value: Bool, forName name: String) -> Parameters { setValue(value, forName: name) }
    /// Sets a date.
    @discardableResult public func setDate(_ value: Date?, forName name: String) -> Parameters { setValue(value, forName: name) }
    /// Sets an array.
    @discardableResult public func setArray(_ value: ArrayObject?, forName name: String) -> Parameters { setValue(value, forName: name) }
    /// Sets a dictionary.
    @discardableResult public func setDictionary(_ value: DictionaryObject?, forName name: String) -> Parameters {
        setValue(value, forName: name)
    }
}

extension QueryNode {
    /// The node as a plain Swift value (arrays of `[]` operations become arrays).
    var plainValue: Any? {
        switch self {
        case .null, .invalid: return nil
        case .bool(let value): return value
        case .int(let value): return value
        case .double(let value): return value
        case .string(let value): return value
        case .array(let items):
            if case .string("[]")? = items.first { return items.dropFirst().map { $0.plainValue ?? NSNull() } }
            return items.map { $0.plainValue ?? NSNull() }
        case .dictionary(let entries): return entries.mapValues { $0.plainValue ?? NSNull() }
        }
    }
}
