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

    /// The value of one hex digit (`0`–`9`, `a`–`f`, `A`–`F`); nil for any other byte.
    package static func digitValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
