/// What an enumeration of a key store returns and in which order.
package struct RecordEnumerationOptions: Sendable {
    /// Include records whose `deleted` flag is set.
    package var includeDeleted: Bool
    /// Key order from last to first (key enumeration only; sequence order is always ascending).
    package var descending: Bool
    /// Only records with all these flags set (e.g. `.conflicted`).
    package var requiredFlags: DocumentFlags
    /// Whether bodies are read.
    package var content: RecordContent
    /// For `visitRecords`, which promises no order otherwise: visit in key order (byte order of
    /// the UTF-8 keys, as `enumerate` returns them), e.g. for an export.
    package var inKeyOrder: Bool
    /// For `visitRecords`: whether the views' sequences, expirations and positions are read.
    /// Without them a view reports sequence 0, no expiration and position 0, and an engine that
    /// keeps them apart from the body (SQLite's columns) saves reading them for every record a
    /// query scans.
    package var readsMetadata = true

    /// Makes options; the defaults give live records with bodies in ascending order.
    package init(includeDeleted: Bool = false, descending: Bool = false,
                 requiredFlags: DocumentFlags = [], content: RecordContent = .all, inKeyOrder: Bool = false) {
        self.includeDeleted = includeDeleted
        self.descending = descending
        self.requiredFlags = requiredFlags
        self.content = content
        self.inKeyOrder = inKeyOrder
    }

    /// Whether a record with these flags passes the filters.
    package func accepts(_ flags: DocumentFlags) -> Bool {
        (includeDeleted || !flags.contains(.deleted)) && flags.isSuperset(of: requiredFlags)
    }
}
