/// A BLIP message's properties: string keys and values in wire order, keys unique.
package struct BLIPProperties: Sendable, Equatable, ExpressibleByDictionaryLiteral, Sequence {
    package private(set) var pairs: [(key: String, value: String)] = []

    package init() {}

    /// Wraps pairs whose keys the caller has already checked are unique (the decoder does, with
    /// a set, instead of the subscript's linear search per key).
    init(uniquePairs: [(key: String, value: String)]) {
        pairs = uniquePairs
    }

    /// Keeps the literal's order (tests and request builders rely on it).
    package init(dictionaryLiteral elements: (String, String)...) {
        for (key, value) in elements { self[key] = value }
    }

    package subscript(key: String) -> String? {
        get { pairs.first { $0.key == key }?.value }
        set {
            if let index = pairs.firstIndex(where: { $0.key == key }) {
                if let newValue { pairs[index].value = newValue } else { pairs.remove(at: index) }
            } else if let newValue {
                pairs.append((key, newValue))
            }
        }
    }

    package var isEmpty: Bool { pairs.isEmpty }

    package func makeIterator() -> IndexingIterator<[(key: String, value: String)]> { pairs.makeIterator() }

    package static func == (lhs: BLIPProperties, rhs: BLIPProperties) -> Bool {
        lhs.pairs.count == rhs.pairs.count && zip(lhs.pairs, rhs.pairs).allSatisfy { $0 == $1 }
    }
}
