import FoundationEssentials
import Glibc

extension String {
    /// Whether this string comes before `other` in unsigned UTF-8 byte order (the order of
    /// document IDs in the storage engines), without walking the strings character by character.
    @inline(__always)
    func precedesInByteOrder(_ other: String) -> Bool {
        byteOrder(other) < 0
    }

    /// -1, 0 or 1 as this string's UTF-8 bytes sort before, equal or after `other`'s: equal
    /// only when the bytes are (Swift's `==` also equates canonically equivalent spellings,
    /// such as "é" and "e" + U+0301, which Couchbase Lite's binary collation keeps apart).
    func byteOrder(_ other: String) -> Int {
        var a = self, b = other
        return a.withUTF8 { x in
            b.withUTF8 { y in
                if let p = x.baseAddress, let q = y.baseAddress {
                    let order = memcmp(p, q, Swift.min(x.count, y.count))
                    if order != 0 { return order < 0 ? -1 : 1 }
                }
                return x.count == y.count ? 0 : (x.count < y.count ? -1 : 1)
            }
        }
    }
}
