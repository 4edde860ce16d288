/// A read-only view of a Fleece array; iterates its items in order.
package struct FleeceArray: Sendable, Sequence {
    /// The array as a value.
    package let value: FleeceValue
    /// The number of items.
    package let count: Int
    let first: Int
    let wide: Bool

    init(_ value: FleeceValue) {
        self.value = value
        (count, wide, first) = value.reader.collection(value.offset)
    }

    /// Whether the array has no items.
    package var isEmpty: Bool { count == 0 }

    /// The item at `index`, or nil when the index is out of range.
    package subscript(index: Int) -> FleeceValue? {
        guard index >= 0, index < count else { return nil }
        return item(index)
    }

    @inline(__always)
    func item(_ index: Int) -> FleeceValue {
        let slot = first + index * (wide ? 4 : 2)
        return FleeceValue(document: value.document, offset: value.reader.resolve(slot, wide: wide))
    }

    /// Iterates the items in order.
    package struct Iterator: IteratorProtocol {
        let array: FleeceArray
        var index = 0

        /// The next item.
        package mutating func next() -> FleeceValue? {
            guard index < array.count else { return nil }
            defer { index += 1 }
            return array.item(index)
        }
    }

    /// An iterator over the items.
    package func makeIterator() -> Iterator { Iterator(array: self) }
}
