extension FleeceValue {
    /// Appends the value's JSON (as ``json(canonical:)`` writes it) to `out`, for writers of
    /// many values into one buffer (an export).
    ///
    /// ```swift
    /// var line: [UInt8] = []
    /// document.root.appendJSON(to: &line)
    /// ```
    package func appendJSON(to out: inout [UInt8], canonical: Bool = false) {
        var writer = JSONWriter(canonical: canonical, capacity: 0)
        swap(&writer.out, &out)
        writer.write(self)
        swap(&writer.out, &out)
    }
}

/// JSON text pieces written straight into byte buffers.
package enum JSONText {
    /// Appends `utf8` as a JSON string literal, quoted and escaped as LiteCore writes strings.
    package static func appendString(_ utf8: UnsafeRawBufferPointer, to out: inout [UInt8]) {
        var writer = JSONWriter(canonical: false, capacity: 0)
        swap(&writer.out, &out)
        writer.writeString(utf8)
        swap(&writer.out, &out)
    }
}
