/// A string as a dictionary key that equals another only when their UTF-8 bytes do. Swift's
/// `String` keys merge canonically equivalent spellings ("é" and "e" + U+0301), which are two
/// document IDs and two values to Couchbase Lite's binary collation.
struct ExactString: Hashable {
    let value: String

    init(_ value: String) { self.value = value }

    static func == (lhs: ExactString, rhs: ExactString) -> Bool {
        lhs.value.byteOrder(rhs.value) == 0
    }

    func hash(into hasher: inout Hasher) {
        var text = value
        text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
}
