extension FleeceValue {
    /// Whether two values are equal as Fleece compares them: same type; numbers by value
    /// (integers exactly, otherwise as doubles); strings and data by bytes; arrays item by
    /// item; dictionaries by their sets of keys and values, whatever their stored order.
    package func isEqual(to other: FleeceValue) -> Bool {
        let type = self.type
        guard type == other.type else { return false }
        switch type {
        case .null, .undefined:
            return true
        case .boolean:
            return bool == other.bool
        case .number:
            if isInteger && other.isInteger {
                if isUnsigned != other.isUnsigned {
                    let (signed, unsigned) = isUnsigned ? (other, self) : (self, other)
                    return signed.int64 >= 0 && UInt64(signed.int64) == unsigned.uint64
                }
                return isUnsigned ? uint64 == other.uint64 : int64 == other.int64
            }
            return double == other.double
        case .string, .data:
            return withPayload { a in other.withPayload { b in a.elementsEqual(b) } }
        case .array:
            guard let a = array, let b = other.array, a.count == b.count else { return false }
            return zip(a, b).allSatisfy { $0.isEqual(to: $1) }
        case .dictionary:
            guard let a = dictionary, let b = other.dictionary, a.count == b.count else { return false }
            for (key, value) in a {
                guard let otherValue = b[key], value.isEqual(to: otherValue) else { return false }
            }
            return true
        }
    }
}

extension FleeceValue: CustomStringConvertible {
    /// The value as JSON (stored key order).
    package var description: String { json() }
}
