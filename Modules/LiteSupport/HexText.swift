/// Bytes as hexadecimal text, without `String(format:)` (whose first use costs a process
/// milliseconds of runtime type lookups, which `cblite info` would pay at every start).
///
/// ```swift
/// HexText.string([0x0a, 0xff])                   // "0aff"
/// HexText.string([0x0a, 0xff], uppercase: true)  // "0AFF"
/// ```
package enum HexText {
    /// Two digits per byte, lowercase unless `uppercase`.
    package static func string(_ bytes: some Collection<UInt8>, uppercase: Bool = false) -> String {
        let digits = Array((uppercase ? "0123456789ABCDEF" : "0123456789abcdef").utf8)
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
