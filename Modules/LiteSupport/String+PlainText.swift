// The stdlib's canonical decomposition (`_nfd`, what Foundation's
// `decomposedStringWithCanonicalMapping` gives) for ``StringProtocol/removingDiacritics()``.
@_spi(_Unicode) import Swift

/// The few string operations the modules below the public API took from Foundation, written
/// out so that the tools need not link it (docs/decisions.md, Tools-18).
extension StringProtocol {
    /// The text without spaces and tabs at either end (Unicode's space separators and U+0009:
    /// what Foundation's `trimmingCharacters(in: .whitespaces)` removes; line breaks stay).
    package func trimmingSpaces() -> String {
        let isSpace: (Unicode.Scalar) -> Bool = { $0 == "\t" || $0.properties.generalCategory == .spaceSeparator }
        let scalars = String(self).unicodeScalars
        guard let first = scalars.firstIndex(where: { !isSpace($0) }),
              let last = scalars.lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(scalars[first...last])
    }

    /// The text decomposed (NFD) without its non-spacing marks: `"Crème brûlée"` → `"Creme brulee"`,
    /// as full-text folding and the accent-insensitive collation compare it.
    package func removingDiacritics() -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in String(self)._nfd where scalar.properties.generalCategory != .nonspacingMark {
            scalars.append(scalar)
        }
        return String(scalars)
    }

    /// The text with every byte outside `A–Z a–z 0–9 - . _ ~ /` written as `%XX` (as for a
    /// path inside a `file:` URI).
    package func percentEncodingPath() -> String {
        var encoded = ""
        for byte in utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
                 UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "/"):
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                encoded += byte.percentEscape
            }
        }
        return encoded
    }

    /// The text with each `%XX` turned back into its byte; nil when a `%` is not followed by
    /// two hex digits or the bytes are not UTF-8.
    package func removingPercentEscapes() -> String? {
        var bytes: [UInt8] = []
        var iterator = utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else { bytes.append(byte); continue }
            guard let high = iterator.next().flatMap(HexText.digitValue), let low = iterator.next().flatMap(HexText.digitValue)
            else { return nil }
            bytes.append(high << 4 | low)
        }
        return String(validating: bytes, as: UTF8.self)
    }
}

extension String {
    /// The path with `component` added after a `/` (none doubled), as `NSString`'s
    /// `appendingPathComponent` gives for the paths used here.
    ///
    /// ```swift
    /// "/data/".pathAppending("db.cblite2")   // "/data/db.cblite2"
    /// ```
    package func pathAppending(_ component: String) -> String {
        let tail = component.drop(while: { $0 == "/" })
        if isEmpty { return String(tail) }
        return hasSuffix("/") ? self + tail : self + "/" + tail
    }

    /// The path's last component, trailing `/` ignored (`"/a/b/"` → `"b"`; `"/"` → `"/"`).
    package var pathLastComponent: String {
        let trimmed = pathWithoutTrailingSlashes
        if trimmed == "/" { return "/" }
        guard let slash = trimmed.lastIndex(of: "/") else { return trimmed }
        return String(trimmed[trimmed.index(after: slash)...])
    }

    /// The path without its last component (`"/a/b/"` → `"/a"`, `"/a"` → `"/"`, `"a"` → `""`).
    package var pathDeletingLastComponent: String {
        let trimmed = pathWithoutTrailingSlashes
        if trimmed == "/" { return "/" }
        guard let slash = trimmed.lastIndex(of: "/") else { return "" }
        if slash == trimmed.startIndex { return "/" }
        return String(trimmed[..<slash])
    }

    private var pathWithoutTrailingSlashes: String {
        var trimmed = Substring(self)
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        return String(trimmed)
    }
}

extension String {
    /// `prefix` and the string with each byte a store name cannot hold (all but ASCII letters,
    /// digits, `_`, `-` and `.`) percent-encoded: the store names of value and full-text indexes.
    package func storeName(prefix: String) -> String {
        var encoded = prefix
        for byte in utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: "."):
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                encoded += byte.percentEscape
            }
        }
        return encoded
    }
}

extension UInt8 {
    /// The byte as `%XX` (two upper-case hex digits), as in a percent-encoded name.
    package var percentEscape: String {
        "%" + String(self >> 4, radix: 16, uppercase: true) + String(self & 0xF, radix: 16, uppercase: true)
    }
}
