import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Small JSON helpers for message bodies (change lists, checkpoint values).
package enum MessageJSON {
    /// The JSON text of a value JSONSerialization produced (fragments allowed).
    package static func encode(_ value: Any) -> String {
        guard let data = try? JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed, .withoutEscapingSlashes]),  // allowed: our own values
              let text = String(data: data, encoding: .utf8) else { return "null" }
        return text
    }

    /// Parses JSON bytes (fragments allowed); nil when they are not JSON.
    package static func decode(_ bytes: [UInt8]) -> Any? {
        guard !bytes.isEmpty else { return nil }
        return try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])  // allowed: nil = not JSON, callers refuse it
    }

    /// A JSON string literal.
    package static func quoted(_ string: String) -> String { encode(string) }

    /// Whether `bytes` contain `needle` (revision bodies are scanned for a few keys before
    /// anything costlier is done): `memchr` for the needle's first byte that is not a quote,
    /// then a comparison around it. Searching for the leading quote stopped at every string of
    /// the JSON; six such scans per received revision were about 1.5 % of a push.
    package static func contains(_ bytes: [UInt8], _ needle: String) -> Bool {
        let pattern = Array(needle.utf8)
        guard !pattern.isEmpty, bytes.count >= pattern.count else { return false }
        let anchor = pattern.firstIndex { $0 != UInt8(ascii: "\"") } ?? 0
        let anchorByte = Int32(pattern[anchor])
        return bytes.withUnsafeBytes { haystack -> Bool in
            guard let base = haystack.baseAddress else { return false }
            // The anchor byte of a match lies in anchor...(count - pattern.count + anchor).
            var offset = anchor
            let last = haystack.count - pattern.count + anchor
            while offset <= last {
                guard let found = memchr(base + offset, anchorByte, last - offset + 1) else { return false }
                let position = base.distance(to: UnsafeRawPointer(found))
                if memcmp(base + position - anchor, pattern, pattern.count) == 0 { return true }
                offset = position + 1
            }
            return false
        }
    }
}
