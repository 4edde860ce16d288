/// JSON string literals escaped as LiteCore writes them, for code that builds JSON text.
package enum JSONQuoting {
    /// `text` as a JSON string literal (`"a\"b"`).
    package static func quoted(_ text: String) -> String {
        var text = text
        return text.withUTF8 { bytes in
            var writer = JSONWriter(canonical: false, capacity: bytes.count + 2)
            writer.writeString(UnsafeRawBufferPointer(bytes))
            return String(decoding: writer.out, as: UTF8.self)
        }
    }
}
