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

    /// Puts the rows in ORDER BY's order (N1QL collation of `keys`, each row's values of
    /// `orderBy`), ties in document-ID order (by bytes), where `groups` numbers runs of rows
    /// already in order between them (a run's keys encode alike in an index read in order).
    /// An insertion sort of the positions: the rows come in nearly that order, so it costs one
    /// comparison a row when they are in order already; past a few moves a row (a long run of
    /// ties read backwards), a full sort instead.
    mutating func sortNearlyOrdered(groups: [Int], keys: [[QueryValue]], orderBy: [(expression: CompiledExpression, descending: Bool)]) {
        guard count > 1 else { return }
        func precedes(_ a: Int, _ b: Int) -> Bool {
            if groups[a] != groups[b] { return groups[a] < groups[b] }
            for (index, item) in orderBy.enumerated() {
                let order = QueryValue.compare(keys[a][index], keys[b][index])
                if order != 0 { return item.descending ? order > 0 : order < 0 }
            }
            return self[a].id.precedesInByteOrder(self[b].id)
        }
        var order = [Int](indices)
        var moved = false
        var moves = 0
        for next in 1..<order.count {
            let position = order[next]
            var slot = next
            while slot > 0, precedes(position, order[slot - 1]) {
                order[slot] = order[slot - 1]
                slot -= 1
                moves += 1
            }
            if moves > 4 * count + 16 {
                // IDs differ, so no two positions tie and any sort gives the one order.
                self = indices.sorted(by: precedes).map { self[$0] }
                return
            }
            if slot != next {
                order[slot] = position
                moved = true
            }
        }
        if moved { self = order.map { self[$0] } }
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
