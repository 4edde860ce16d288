extension Array where Element == QueryRow {
    /// Puts the rows in document-ID order (by bytes), keeping the order of equal IDs. Sorting
    /// the rows themselves moved whole rows, a dozen references each, at every step of the
    /// sort; this sorts their positions by each ID's first 16 bytes (read once per row), looks
    /// at whole IDs only where those tie, then moves each row once, and does nothing when the
    /// rows are in order already. (Comparing the rows' IDs in the sort's closure was still half
    /// of an indexed range query.)
    mutating func sortByDocumentID() {
        guard count > 1 else { return }
        let ids = map(\.id)
        let keys = ids.map(SortKey.init)
        func precedes(_ a: Int, _ b: Int) -> Bool {
            let (x, y) = (keys[a], keys[b])
            if x.high != y.high { return x.high < y.high }
            if x.low != y.low { return x.low < y.low }
            if x.length <= 16 && y.length <= 16 { return x.length < y.length }
            return ids[a].precedesInByteOrder(ids[b])
        }
        if indices.dropFirst().allSatisfy({ !precedes($0, $0 - 1) }) { return }
        let order = indices.sorted(by: precedes)   // stable
        self = order.map { self[$0] }
    }
}

/// A document ID's first 16 UTF-8 bytes as two big-endian numbers (zero-padded), and its
/// length: the same order as the bytes, but for IDs that agree on those 16 bytes.
private struct SortKey {
    let high: UInt64
    let low: UInt64
    let length: Int

    init(_ id: String) {
        var text = id
        (high, low, length) = text.withUTF8 { bytes in
            var high: UInt64 = 0, low: UInt64 = 0
            for index in 0..<16 {
                let byte = index < bytes.count ? UInt64(bytes[index]) : 0
                if index < 8 { high = high << 8 | byte } else { low = low << 8 | byte }
            }
            return (high, low, bytes.count)
        }
    }
}
