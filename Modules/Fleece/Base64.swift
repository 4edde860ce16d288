/// Standard base64 (RFC 4648, with padding), used for binary data in JSON.
package enum Base64 {
    static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// Appends the base64 text of `bytes` to `out`.
    static func encode(_ bytes: UnsafeRawBufferPointer, into out: inout [UInt8]) {
        var index = 0
        while index + 3 <= bytes.count {
            let chunk = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
            for shift in stride(from: 18, through: 0, by: -6) { out.append(alphabet[Int((chunk >> UInt32(shift)) & 0x3F)]) }
            index += 3
        }
        let remaining = bytes.count - index
        if remaining > 0 {
            var chunk = UInt32(bytes[index]) << 16
            if remaining == 2 { chunk |= UInt32(bytes[index + 1]) << 8 }
            out.append(alphabet[Int((chunk >> 18) & 0x3F)])
            out.append(alphabet[Int((chunk >> 12) & 0x3F)])
            out.append(remaining == 2 ? alphabet[Int((chunk >> 6) & 0x3F)] : UInt8(ascii: "="))
            out.append(UInt8(ascii: "="))
        }
    }

    /// The base64 text of `bytes`.
    package static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        bytes.withUnsafeBytes { encode($0, into: &out) }
        return String(decoding: out, as: UTF8.self)
    }
}
