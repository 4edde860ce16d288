import FoundationEssentials
import Glibc

extension String {
    /// Whether this string comes before `other` in unsigned UTF-8 byte order (the order of
    /// document IDs in the storage engines), without walking the strings character by character.
    @inline(__always)
    func precedesInByteOrder(_ other: String) -> Bool {
        var a = self, b = other
        return a.withUTF8 { x in
            b.withUTF8 { y in
                guard let p = x.baseAddress, let q = y.baseAddress else { return x.count < y.count }
                let order = memcmp(p, q, Swift.min(x.count, y.count))
                return order != 0 ? order < 0 : x.count < y.count
            }
        }
    }
}
