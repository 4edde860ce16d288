import Fleece

/// One document as a query reads it: its metadata and its current revision's body, plus what
/// the row's joined sources hold (another document, an UNNEST element, or nothing).
///
/// The document's part is one shared, immutable object: a row is copied into every pair a join
/// makes, into the joined alias of another row, and through sorting, and each copy of a dozen
/// references (and the dictionary of joined aliases it had) was most of a join's time.
package struct QueryRow: Sendable {
    /// What the row read of its document.
    private final class Document: Sendable {
        let id: String
        let sequence: UInt64
        let isDeleted: Bool
        let expiration: Int64?
        let body: FleeceDocument?
        let revisionID: String?
        let indexValues: IndexCoverage.Values?
        let groupKey: [QueryValue]?

        init(id: String, sequence: UInt64, isDeleted: Bool, expiration: Int64?, body: FleeceDocument?,
             revisionID: String?, indexValues: IndexCoverage.Values?, groupKey: [QueryValue]?) {
            self.id = id
            self.sequence = sequence
            self.isDeleted = isDeleted
            self.expiration = expiration
            self.body = body
            self.revisionID = revisionID
            self.indexValues = indexValues
            self.groupKey = groupKey
        }
    }

    private let document: Document
    /// The joined sources' values by alias, in join order (absent: the alias is the first
    /// source's). A query joins a few sources, so a list searched by name beats hashing.
    private var bindings: [(alias: String, binding: QueryBinding)] = []

    package init(id: String, sequence: UInt64, isDeleted: Bool, expiration: Int64?, body: FleeceDocument?,
                 revisionID: String? = nil) {
        document = Document(id: id, sequence: sequence, isDeleted: isDeleted, expiration: expiration, body: body,
                            revisionID: revisionID, indexValues: nil, groupKey: nil)
    }

    /// A row read from a value index's entry or from a few kept values (no body).
    init(id: String, sequence: UInt64, isDeleted: Bool, expiration: Int64?, revisionID: String? = nil,
         indexValues: IndexCoverage.Values?, groupKey: [QueryValue]? = nil) {
        document = Document(id: id, sequence: sequence, isDeleted: isDeleted, expiration: expiration, body: nil,
                            revisionID: revisionID, indexValues: indexValues, groupKey: groupKey)
    }

    package var id: String { document.id }
    package var sequence: UInt64 { document.sequence }
    package var isDeleted: Bool { document.isDeleted }
    package var expiration: Int64? { document.expiration }
    package var body: FleeceDocument? { document.body }
    /// The current revision ID, when the query reads it (`._revisionID`).
    package var revisionID: String? { document.revisionID }
    /// For a row read from a value index's entry alone (no body): the values its key holds.
    var indexValues: IndexCoverage.Values? { document.indexValues }
    /// The GROUP BY values, computed while the row's body was lent by the read, for a grouped
    /// query that reads nothing else of a row after WHERE (the row then keeps no body).
    var groupKey: [QueryValue]? { document.groupKey }

    /// What `alias` stands for in this row; nil when it is not a joined alias of the row.
    package func binding(_ alias: String) -> QueryBinding? {
        for entry in bindings where entry.alias == alias { return entry.binding }
        return nil
    }

    /// This row with `alias` standing for `binding`.
    func binding(_ alias: String, to binding: QueryBinding) -> QueryRow {
        var row = self
        if let slot = row.bindings.firstIndex(where: { $0.alias == alias }) {
            row.bindings[slot].binding = binding
        } else {
            row.bindings.reserveCapacity(bindings.count + 1)
            row.bindings.append((alias, binding))
        }
        return row
    }

    /// A row with no document (for expressions that read none: LIMIT, OFFSET, index bounds).
    static let none = QueryRow(id: "", sequence: 0, isDeleted: false, expiration: nil, body: nil)
}

/// What a joined alias stands for in one row.
package enum QueryBinding: Sendable {
    /// A document of a join.
    case document(QueryRow)
    /// An element of an UNNEST.
    case value(QueryValue)
    /// A LEFT OUTER join that found nothing.
    case missing
}
