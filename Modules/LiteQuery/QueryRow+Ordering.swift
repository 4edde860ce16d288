extension Array where Element == QueryRow {
    /// Puts the rows in document-ID order (by bytes), keeping the order of equal IDs. Sorting
    /// the rows themselves moved whole rows, a dozen references each, at every step of the
    /// sort (a quarter of an indexed range query); this sorts their positions, then moves each
    /// row once, and does nothing when they are in order already.
    mutating func sortByDocumentID() {
        guard count > 1 else { return }
        if indices.dropFirst().allSatisfy({ !self[$0].id.precedesInByteOrder(self[$0 - 1].id) }) { return }
        let order = indices.sorted { self[$0].id.precedesInByteOrder(self[$1].id) }   // stable
        self = order.map { self[$0] }
    }
}
