/// A value held by a ``MutableDict`` or ``MutableArray``: a scalar, a nested mutable
/// container, or an unchanged value read from Fleece (copied only when it is changed).
package enum MutableValue {
    /// JSON `null`.
    case null
    /// A boolean.
    case bool(Bool)
    /// A signed integer.
    case int(Int64)
    /// An unsigned integer.
    case uint(UInt64)
    /// A double (written as a 32-bit float when exact, as LiteCore does).
    case double(Double)
    /// A 32-bit float.
    case float(Float)
    /// A string.
    case string(String)
    /// Binary data.
    case data([UInt8])
    /// A mutable array.
    case array(MutableArray)
    /// A mutable dictionary.
    case dictionary(MutableDict)
    /// A value read from Fleece, unchanged.
    case fleece(FleeceValue)

    /// Writes the value into `encoder`.
    package func encode(to encoder: FleeceEncoder) {
        switch self {
        case .null: encoder.writeNull()
        case let .bool(value): encoder.writeBool(value)
        case let .int(value): encoder.writeInt(value)
        case let .uint(value): encoder.writeUInt(value)
        case let .double(value): encoder.writeDouble(value)
        case let .float(value): encoder.writeFloat(value)
        case let .string(value): encoder.writeString(value)
        case let .data(value): encoder.writeData(value)
        case let .array(value): value.encode(to: encoder)
        case let .dictionary(value): value.encode(to: encoder)
        case let .fleece(value): encoder.writeValue(value)
        }
    }

    /// The dictionary this holds, as a mutable one: the nested one, or a copy of one read from
    /// Fleece (`isCopy`: the container must store it in this value's place, so that changes
    /// made to it are kept); nil when this is not a dictionary.
    package var mutableDictionary: (MutableDict, isCopy: Bool)? {
        if case let .dictionary(dict) = self { return (dict, false) }
        return fleeceValue?.dictionary.map { (MutableDict($0), true) }
    }

    /// The array this holds, as a mutable one (see ``mutableDictionary``).
    package var mutableArray: (MutableArray, isCopy: Bool)? {
        if case let .array(array) = self { return (array, false) }
        return fleeceValue?.array.map { (MutableArray($0), true) }
    }

    /// The read value, when this is one.
    package var fleeceValue: FleeceValue? {
        if case let .fleece(value) = self { return value }
        return nil
    }

    /// The string, when this is a string (set or read).
    package var string: String? {
        switch self {
        case let .string(value): return value
        case let .fleece(value): return value.string
        default: return nil
        }
    }

    /// The value as a signed integer, when it is a number (set or read).
    package var int64: Int64? {
        switch self {
        case let .int(value): return value
        case let .uint(value): return Int64(truncatingIfNeeded: value)
        case let .double(value): return value.isFinite && value.magnitude < 9.2e18 ? Int64(value) : nil
        case let .float(value): return value.isFinite && value.magnitude < 9.2e18 ? Int64(value) : nil
        case let .fleece(value): return value.type == .number ? value.int64 : nil
        default: return nil
        }
    }

    /// The value with nested mutable containers copied.
    func deepCopy() -> MutableValue {
        switch self {
        case let .array(array): return .array(array.copy())
        case let .dictionary(dict): return .dictionary(dict.copy())
        default: return self
        }
    }

    /// Makes a mutable copy of a read collection (other values are returned as they are).
    static func mutable(_ value: FleeceValue) -> MutableValue {
        if let dict = value.dictionary { return .dictionary(MutableDict(dict)) }
        if let array = value.array { return .array(MutableArray(array)) }
        return .fleece(value)
    }
}
