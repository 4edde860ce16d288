/// A revision ID as Couchbase Lite 1.x stored it: `<generation>-<lowercase hex digest>`.
///
/// 1.x digests are 32 hex digits (MD5); any even-length lowercase hex digest is accepted, as
/// LiteCore does. Order (the `REVID` collation): generation numerically, then digest bytes.
///
/// ```swift
/// let revID = try LegacyRevisionID(parsing: "2-db9941f74d7fd45d60c272b796ae50c7")
/// revID.generation   // 2
/// revID.string       // "2-db9941f74d7fd45d60c272b796ae50c7"
/// ```
package struct LegacyRevisionID: Sendable, Hashable, CustomStringConvertible {
    /// The generation: 1 for a document's first revision, one more for each edit.
    package let generation: UInt64
    /// The digest's bytes (the hex after the dash, decoded).
    package let digest: [UInt8]

    /// The ASCII form, exactly as 1.x stored it.
    package var string: String {
        let hexDigits = Array("0123456789abcdef".utf8)
        var bytes = Array(String(generation).utf8)
        bytes.append(UInt8(ascii: "-"))
        for byte in digest {
            bytes.append(hexDigits[Int(byte >> 4)])
            bytes.append(hexDigits[Int(byte & 0x0F)])
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The ASCII form.
    package var description: String { string }

    /// Parses an ASCII revision ID, or returns `nil` when it is not `<generation>-<hex>` with a
    /// decimal generation of 1 or more (at most 20 digits) and a non-empty, even-length,
    /// lowercase hex digest.
    package init?(_ text: String) {
        self.init(utf8: Array(text.utf8))
    }

    /// Parses the ASCII bytes of a revision ID; see ``init(_:)``.
    package init?(utf8 bytes: some Collection<UInt8>) {
        guard let dash = bytes.firstIndex(of: UInt8(ascii: "-")) else { return nil }
        let generationDigits = bytes[bytes.startIndex..<dash]
        let hex = Array(bytes[bytes.index(after: dash)...])
        guard !generationDigits.isEmpty, generationDigits.count <= 20,
              !hex.isEmpty, hex.count % 2 == 0 else { return nil }
        var generation: UInt64 = 0
        for digit in generationDigits {
            guard digit >= UInt8(ascii: "0"), digit <= UInt8(ascii: "9") else { return nil }
            let (times10, overflow1) = generation.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(UInt64(digit - UInt8(ascii: "0")))
            guard !overflow1, !overflow2 else { return nil }
            generation = sum
        }
        guard generation >= 1 else { return nil }
        var digest: [UInt8] = []
        digest.reserveCapacity(hex.count / 2)
        var index = 0
        while index < hex.count {
            guard let high = Self.hexValue(hex[index]), let low = Self.hexValue(hex[index + 1]) else {
                return nil
            }
            digest.append(high << 4 | low)
            index += 2
        }
        self.generation = generation
        self.digest = digest
    }

    /// Creates a revision ID from its parts.
    package init(generation: UInt64, digest: [UInt8]) {
        self.generation = generation
        self.digest = digest
    }

    /// Uppercase hex is not accepted: revision IDs are compared as strings by peers.
    private static func hexValue(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): character - UInt8(ascii: "a") + 10
        default: nil
        }
    }
}

extension LegacyRevisionID: Comparable {
    /// Generation first, then digest bytes (a shorter digest that is a prefix sorts first).
    package static func < (lhs: LegacyRevisionID, rhs: LegacyRevisionID) -> Bool {
        if lhs.generation != rhs.generation { return lhs.generation < rhs.generation }
        return lhs.digest.lexicographicallyPrecedes(rhs.digest)
    }
}
