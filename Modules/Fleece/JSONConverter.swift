/// JSON ⇄ Fleece conversion.
///
/// ```swift
/// let bytes = try JSONConverter.fleece(fromJSON: #"{"a":[1,2.5,"x"]}"#)
/// let json = try FleeceDocument(bytes: bytes).root.json()
/// ```
package enum JSONConverter {
    /// The deepest nesting accepted, as in Couchbase Lite 2.8's converter.
    package static let defaultMaximumDepth = 48

    /// Parses JSON (or, with `json5`, JSON5) text into Fleece bytes.
    ///
    /// - Throws: ``FleeceError`` (`.jsonError`) with the byte offset of the problem.
    package static func fleece(fromJSON json: String, sharedKeys: SharedKeys? = nil, json5: Bool = false,
                               maximumDepth: Int = defaultMaximumDepth) throws -> [UInt8] {
        var json = json
        return try json.withUTF8 {
            try fleece(fromJSONBytes: UnsafeRawBufferPointer($0), sharedKeys: sharedKeys, json5: json5, maximumDepth: maximumDepth)
        }
    }

    /// Parses JSON text given as UTF-8 bytes into Fleece bytes.
    package static func fleece(fromJSONBytes json: UnsafeRawBufferPointer, sharedKeys: SharedKeys? = nil, json5: Bool = false,
                               maximumDepth: Int = defaultMaximumDepth) throws -> [UInt8] {
        let encoder = FleeceEncoder(sharedKeys: sharedKeys, reservingCapacity: json.count)
        try write(json: json, to: encoder, json5: json5, maximumDepth: maximumDepth)
        return try encoder.finish()
    }

    /// Parses JSON text and writes the value into `encoder` (e.g. as one item of a collection).
    package static func write(json: UnsafeRawBufferPointer, to encoder: FleeceEncoder, json5: Bool = false,
                              maximumDepth: Int = defaultMaximumDepth) throws {
        var parser = JSONParser(text: json, encoder: encoder, json5: json5, maximumDepth: maximumDepth)
        try parser.parseDocument()
    }

    /// Checks that `json` is valid JSON (or JSON5) that ``write(json:to:json5:maximumDepth:)``
    /// would accept, without encoding anything.
    ///
    /// - Throws: ``FleeceError`` (`.jsonError`) with the byte offset of the problem.
    package static func validate(json: UnsafeRawBufferPointer, json5: Bool = false,
                                 maximumDepth: Int = defaultMaximumDepth) throws {
        var parser = JSONParser(text: json, encoder: JSONValidationSink(), json5: json5, maximumDepth: maximumDepth)
        try parser.parseDocument()
    }

    /// Converts Fleece bytes to JSON text (validating them first).
    package static func json(fromFleece bytes: [UInt8], sharedKeys: SharedKeys? = nil, canonical: Bool = false) throws -> String {
        try FleeceDocument(bytes: bytes, sharedKeys: sharedKeys).root.json(canonical: canonical)
    }
}
