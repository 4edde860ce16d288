/// A ``JSONSink`` in front of another (an encoder, or a validating sink) that leaves out some keys of the top-level object
/// (`_id`, `_rev` of an imported document) and remembers the value of one of them as text, so
/// a document's JSON can be encoded in one pass, in its own key order.
final class JSONTopLevelFilter<Inner: JSONSink>: JSONSink {
    // Generic, not `any JSONSink`: the parser calls through here for every token.
    private let encoder: Inner
    /// The skipped and captured keys as UTF-8, compared with each top-level key's bytes.
    private let skipped: [[UInt8]]
    private let captured: [UInt8]?
    /// The captured key's value: a string as is, a number as its decimal text.
    @exclusivity(unchecked) private(set) var capturedValue: String?
    /// Whether the captured key was present at all (its value may have been of another kind).
    @exclusivity(unchecked) private(set) var sawCapturedKey = false
    /// Open collections (1: inside the top-level object).
    @exclusivity(unchecked) private var depth = 0
    /// While > 0, the depth at which a skipped value started (its events are dropped).
    @exclusivity(unchecked) private var skipDepth = 0
    @exclusivity(unchecked) private var skippingScalar = false
    @exclusivity(unchecked) private var capturing = false

    init(encoder: Inner, skipping keys: Set<String>, capturing key: String?) {
        self.encoder = encoder
        skipped = keys.map { Array($0.utf8) }
        captured = key.map { Array($0.utf8) }
    }

    var error: FleeceError? { encoder.error }

    /// Whether the event belongs to a skipped value (and consumes a pending scalar skip).
    private func dropScalar() -> Bool {
        if skipDepth > 0 { return true }
        if skippingScalar {
            skippingScalar = false
            return true
        }
        return false
    }

    @discardableResult func writeStringBytes(_ bytes: UnsafeRawBufferPointer) -> Int? {
        if capturing {
            capturedValue = String(decoding: bytes, as: UTF8.self)
            capturing = false
        }
        if dropScalar() { return nil }
        return encoder.writeStringBytes(bytes)
    }

    func writeKeyBytes(_ bytes: UnsafeRawBufferPointer) {
        if skipDepth > 0 { return }
        if depth == 1 {
            if let key = skipped.first(where: { $0.elementsEqual(bytes) }) {
                skippingScalar = true
                capturing = key == captured
                if capturing { sawCapturedKey = true }
                return
            }
        }
        encoder.writeKeyBytes(bytes)
    }

    private func number(_ text: @autoclosure () -> String) {
        if capturing {
            capturedValue = text()
            capturing = false
        }
    }

    func writeBool(_ value: Bool) { capturing = false; if !dropScalar() { encoder.writeBool(value) } }
    func writeNull() { capturing = false; if !dropScalar() { encoder.writeNull() } }
    func writeInt(_ value: Int64) { number(String(value)); if !dropScalar() { encoder.writeInt(value) } }
    func writeUInt(_ value: UInt64) { number(String(value)); if !dropScalar() { encoder.writeUInt(value) } }
    func writeDouble(_ value: Double) {
        number(value == value.rounded() && value.magnitude < 1e15 ? String(Int64(value)) : String(value))
        if !dropScalar() { encoder.writeDouble(value) }
    }

    private func begin(_ open: () -> Void) {
        capturing = false
        if skipDepth == 0, skippingScalar {
            skippingScalar = false
            skipDepth = depth + 1
        }
        depth += 1
        if skipDepth == 0 { open() }
    }

    private func end(_ close: () -> Void) {
        if skipDepth == 0 { close() }
        if skipDepth == depth { skipDepth = 0 }
        depth -= 1
    }

    func beginDictionary(reservingCapacity capacity: Int) { begin { encoder.beginDictionary(reservingCapacity: capacity) } }
    func endDictionary() { end { encoder.endDictionary() } }
    func beginArray(reservingCapacity capacity: Int) { begin { encoder.beginArray(reservingCapacity: capacity) } }
    func endArray() { end { encoder.endArray() } }
}

extension JSONConverter {
    /// Parses a JSON object straight into `encoder` in its own key order, leaving out the
    /// top-level keys in `skipping`.
    ///
    /// - Returns: the value of top-level key `capturing` as text (a string as is, a number in
    ///   decimal), if present — an imported document's `_id`.
    @discardableResult
    package static func write(json: UnsafeRawBufferPointer, to encoder: FleeceEncoder, skipping keys: Set<String>,
                              capturing key: String? = nil, maximumDepth: Int = defaultMaximumDepth) throws -> String? {
        let filter = JSONTopLevelFilter(encoder: encoder, skipping: keys, capturing: key)
        var parser = JSONParser(text: json, encoder: filter, json5: false, maximumDepth: maximumDepth)
        try parser.parseDocument()
        return filter.capturedValue
    }

    /// The value of a top-level key of a JSON object as text (a string as is, a number in
    /// decimal), found by a syntax-checking pass that builds nothing.
    ///
    /// - Returns: `present` false when the key is absent; `value` nil when it holds something
    ///   other than a string or number.
    package static func topLevelValue(forKey key: String, inJSON json: UnsafeRawBufferPointer) throws
        -> (present: Bool, value: String?) {
        let filter = JSONTopLevelFilter(encoder: JSONValidationSink(), skipping: [key], capturing: key)
        var parser = JSONParser(text: json, encoder: filter, json5: false, maximumDepth: defaultMaximumDepth)
        try parser.parseDocument()
        return (filter.sawCapturedKey, filter.capturedValue)
    }
}
