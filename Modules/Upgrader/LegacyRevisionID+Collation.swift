import CSQLite

extension LegacyRevisionID {
    /// The collation name 1.x declared on `revs.revid` and `localdocs.revid`.
    package static let collationName = "REVID"

    /// Registers the `REVID` collation on a SQLite connection, so statements and indexes over
    /// 1.x `revid` columns work (SQLite refuses to use an index whose collation is unknown).
    ///
    /// - Returns: the SQLite result code (`SQLITE_OK` on success).
    package static func registerCollation(on connection: OpaquePointer) -> Int32 {
        sqlite3_create_collation_v2(connection, collationName, SQLITE_UTF8, nil,
                                    compareRevisionIDText, nil)
    }

    /// Compares two revision IDs in their ASCII form without allocating, in ``LegacyRevisionID``
    /// order. Text that is not `<digits>-…` sorts before every valid ID, and among itself by
    /// bytes, so the order stays total (SQLite requires that of a collation).
    static func compareText(_ lhs: UnsafeRawBufferPointer, _ rhs: UnsafeRawBufferPointer) -> Int32 {
        let left = splitGeneration(lhs), right = splitGeneration(rhs)
        switch (left, right) {
        case let (.some(l), .some(r)):
            if l.generation != r.generation { return l.generation < r.generation ? -1 : 1 }
            // Lowercase hex compares like the digest bytes it encodes.
            return compareBytes(UnsafeRawBufferPointer(rebasing: lhs[l.digestStart...]),
                                UnsafeRawBufferPointer(rebasing: rhs[r.digestStart...]))
        case (.none, .some): return -1
        case (.some, .none): return 1
        case (.none, .none): return compareBytes(lhs, rhs)
        }
    }

    private static func splitGeneration(_ text: UnsafeRawBufferPointer)
        -> (generation: UInt64, digestStart: Int)? {
        var generation: UInt64 = 0
        for (index, byte) in text.enumerated() {
            if byte == UInt8(ascii: "-") {
                return index > 0 ? (generation, index + 1) : nil
            }
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9"), index < 20 else { return nil }
            let (times10, overflow1) = generation.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(UInt64(byte - UInt8(ascii: "0")))
            guard !overflow1, !overflow2 else { return nil }
            generation = sum
        }
        return nil
    }

    private static func compareBytes(_ lhs: UnsafeRawBufferPointer, _ rhs: UnsafeRawBufferPointer) -> Int32 {
        for (l, r) in zip(lhs, rhs) where l != r { return l < r ? -1 : 1 }
        return lhs.count == rhs.count ? 0 : (lhs.count < rhs.count ? -1 : 1)
    }
}

/// The C entry point SQLite calls; SQLite guarantees each pointer covers its length in bytes.
private func compareRevisionIDText(_ context: UnsafeMutableRawPointer?,
                                   _ length1: Int32, _ bytes1: UnsafeRawPointer?,
                                   _ length2: Int32, _ bytes2: UnsafeRawPointer?) -> Int32 {
    let lhs = UnsafeRawBufferPointer(start: length1 > 0 ? bytes1 : nil, count: Int(max(length1, 0)))
    let rhs = UnsafeRawBufferPointer(start: length2 > 0 ? bytes2 : nil, count: Int(max(length2, 0)))
    return LegacyRevisionID.compareText(lhs, rhs)
}
