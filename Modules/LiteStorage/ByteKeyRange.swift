/// A half-open range of byte keys, `lower ..< upper` in unsigned byte order; `nil` ends are open.
package struct ByteKeyRange: Sendable, Hashable {
    /// The smallest key included, or `nil` for the first key.
    package var lower: [UInt8]?
    /// The first key excluded, or `nil` for past the last key.
    package var upper: [UInt8]?

    /// Makes a range.
    package init(lower: [UInt8]? = nil, upper: [UInt8]? = nil) {
        self.lower = lower
        self.upper = upper
    }

    /// Every key in the store.
    package static let all = ByteKeyRange()

    /// Every key starting with `prefix`.
    package init(prefix: [UInt8]) {
        lower = prefix.isEmpty ? nil : prefix
        upper = Self.successor(ofPrefix: prefix)
    }

    /// The smallest key greater than every key starting with `prefix` (`nil` when there is none:
    /// an empty prefix or one made only of 0xFF bytes).
    package static func successor(ofPrefix prefix: [UInt8]) -> [UInt8]? {
        var bytes = prefix
        while let last = bytes.last {
            if last < 0xFF {
                bytes[bytes.count - 1] = last + 1
                return bytes
            }
            bytes.removeLast()
        }
        return nil
    }

    /// Whether `key` is inside the range.
    package func contains(_ key: [UInt8]) -> Bool {
        if let lower, key.lexicographicallyPrecedes(lower) { return false }
        if let upper, !key.lexicographicallyPrecedes(upper) { return false }
        return true
    }
}
