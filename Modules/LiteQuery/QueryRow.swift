import Fleece

/// One document as a query reads it: its metadata and its current revision's body, plus what
/// the row's joined sources hold (another document, an UNNEST element, or nothing).
package struct QueryRow: Sendable {
    package let id: String
    package let sequence: UInt64
    package let isDeleted: Bool
    package let expiration: Int64?
    package let body: FleeceDocument?
    /// The current revision ID, when the query reads it (`._revisionID`).
    package var revisionID: String?
    /// The joined sources' values by alias (absent: the alias is the first source's).
    package var joined: [String: QueryBinding] = [:]
    /// For a row read from a value index's entry alone (no body): the values its key holds.
    var indexValues: IndexCoverage.Values?
    /// The GROUP BY values, computed while the row's body was lent by the read, for a grouped
    /// query that reads nothing else of a row after WHERE (the row then keeps no body).
    var groupKey: [QueryValue]?

    package init(id: String, sequence: UInt64, isDeleted: Bool, expiration: Int64?, body: FleeceDocument?) {
        self.id = id
        self.sequence = sequence
        self.isDeleted = isDeleted
        self.expiration = expiration
        self.body = body
    }

    /// A row with no document (for expressions that read none: LIMIT, OFFSET, index bounds).
    static let none = QueryRow(id: "", sequence: 0, isDeleted: false, expiration: nil, body: nil)
}

/// What a joined alias stands for in one row.
package indirect enum QueryBinding: Sendable {
    /// A document of a join.
    case document(QueryRow)
    /// An element of an UNNEST.
    case value(QueryValue)
    /// A LEFT OUTER join that found nothing.
    case missing
}
